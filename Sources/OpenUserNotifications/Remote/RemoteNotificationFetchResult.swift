/// What a background fetch for a remote notification achieved: the analogue of `UIBackgroundFetchResult`, with
/// its raw values.
public enum RemoteNotificationFetchResult: UInt, Sendable, Hashable, CaseIterable {
    /// New data was downloaded.
    case newData = 0
    /// There was no new data.
    case noData = 1
    /// The fetch failed.
    case failed = 2
}
