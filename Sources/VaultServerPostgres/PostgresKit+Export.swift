// The PostgreSQL kit's types (`PostgresError`, `PostgresConnectionPool`, ...) appear in this
// module's API, so a host that imports the storage sees them without importing the kit.
@_exported import PostgresKit
