import NotificationModel

/// The requests of a batch add (``NotificationScheduler/add(contentsOf:)``) as the add reads them: an array of
/// ``BatchRequest``s, or ``OneAppBatch``'s specs of one app, which are not copied into such an array first.
protocol BatchRequests: RandomAccessCollection, Sendable where Element == BatchRequest, Index == Int {
    /// The apps the requests are for.
    var appIDs: Set<String> { get }
}

extension Array: BatchRequests where Element == BatchRequest {
    /// The apps the requests are for.
    var appIDs: Set<String> { BatchRequest.distinctAppIDs(lazy.map(\.appID)) }
}

extension BatchRequest {
    /// The distinct apps of `apps`. Most batches are of one app: a run of one app is hashed once.
    package static func distinctAppIDs(_ apps: some Sequence<String>) -> Set<String> {
        var found: Set<String> = []
        var previous: String?
        for app in apps where app != previous {
            found.insert(app)
            previous = app
        }
        return found
    }
}
