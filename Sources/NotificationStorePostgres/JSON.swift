import NotificationEngine

/// JSON for the payload columns: the engine's ``StoredJSON``, which the SQLite store writes too, so both stores hold the
/// same bytes for the same value.
typealias JSON = StoredJSON
