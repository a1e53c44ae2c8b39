extension SQLiteFloor {
    /// The pragmas that decide an insert's cost, as SQLite reports them on the connection just before the insert,
    /// printed beside its figure.
    struct Settings: Sendable, CustomStringConvertible {
        var pageSize = 0
        var cacheSize = 0
        /// `PRAGMA synchronous`: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA.
        var synchronous = 0
        var journalMode = ""
        var walAutocheckpoint = 0

        var description: String {
            let synchronousName = [0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"][synchronous] ?? String(synchronous)
            return "page_size \(pageSize), cache_size \(cacheSize), journal_mode \(journalMode), "
                + "synchronous \(synchronousName), wal_autocheckpoint \(walAutocheckpoint)"
        }
    }
}
