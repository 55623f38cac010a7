#ifndef REVEILLE_CSQLITE_SHIM_H
#define REVEILLE_CSQLITE_SHIM_H

// The SQLite calls GRDB does not wrap: the write-ahead-log hook that tells how long the log is
// after each commit (`sqlite3_wal_hook`) and the checkpoint it may run.
#include <sqlite3.h>

#endif
