import NotificationModel

/// The specs of one app as the requests of a batch add, each ``BatchRequest`` made when it is read.
///
/// ``NotificationBackend/add(contentsOf:appID:)`` (the daemon's batches, the center's, `unotify import`'s) hands its
/// specs over as they are: an array of ``BatchRequest``s copied from them cost an import of 100,000 requests about
/// 30 ms of CPU and 55 MB of fresh memory before the add made its own ``PendingRequest``s of them.
struct OneAppBatch: BatchRequests {
    /// The app every request is for.
    let appID: String
    /// The requests' specs, in order.
    let specs: [RequestSpec]

    var startIndex: Int { specs.startIndex }
    var endIndex: Int { specs.endIndex }
    func index(after index: Int) -> Int { index + 1 }
    func index(before index: Int) -> Int { index - 1 }

    subscript(position: Int) -> BatchRequest { BatchRequest(appID: appID, spec: specs[position]) }

    var appIDs: Set<String> { specs.isEmpty ? [] : [appID] }
}
