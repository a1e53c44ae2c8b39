import NotificationModel

/// The requests of a batch add (``NotificationScheduler/add(contentsOf:)``) as the add reads them: an array of
/// ``BatchRequest``s, or ``OneAppBatch``'s specs of one app, which are not copied into such an array first.
protocol BatchRequests: RandomAccessCollection, Sendable where Element == BatchRequest, Index == Int {
    /// The apps the requests are for.
    var appIDs: Set<String> { get }
}

extension Array: BatchRequests where Element == BatchRequest {
    /// The apps the requests are for. Most batches are of one app: a run of requests of the app hashes it once.
    var appIDs: Set<String> {
        var apps: Set<String> = []
        var previous: String?
        for request in self where request.appID != previous {
            apps.insert(request.appID)
            previous = request.appID
        }
        return apps
    }
}
