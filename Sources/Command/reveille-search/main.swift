import SearchProviders

#if canImport(Glibc)
import Glibc
#endif

// `reveille-search`: the desktop's search providers (SearchProviders), D-Bus activated.
exit(await ReveilleSearch.main())
