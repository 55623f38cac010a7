#ifndef REVEILLE_CSQLITE_SHIM_H
#define REVEILLE_CSQLITE_SHIM_H

// SQLite, for the store's thin wrapper (AlarmCore's SQLiteConnection) and its write-ahead-log hook.
#include <sqlite3.h>

#endif
