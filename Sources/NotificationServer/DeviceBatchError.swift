/// An all-or-nothing batch (``DeviceScheduler/scheduleAll(_:)``) that was refused as a whole, because of the requests
/// it names: nothing of it was stored.
///
/// ```swift
/// do { try await devices.scheduleAll(batch) } catch let error as DeviceBatchError {
///     for (index, reason) in error.refusals.sorted(by: { $0.key < $1.key }) { print("request \(index): \(reason)") }
/// }
/// ```
public struct DeviceBatchError: Error, Sendable, CustomStringConvertible {
    /// Every refused request, by its index in the batch, with the error scheduling it alone would have thrown
    /// (`DeviceError` for an unknown or inactive device, `EngineError` for a refused trigger or content).
    public var refusals: [Int: any Error]
    /// How many requests the batch had.
    public var count: Int

    /// Creates the error of a refused batch.
    ///
    /// - Parameters:
    ///   - refusals: The refused requests by index (at least one).
    ///   - count: The batch's size.
    public init(refusals: [Int: any Error], count: Int) {
        self.refusals = refusals
        self.count = count
    }

    public var description: String {
        let first = refusals.keys.sorted().prefix(3).map { "request \($0): \(refusals[$0]!)" }.joined(separator: "; ")
        let more = refusals.count > 3 ? "; and \(refusals.count - 3) more" : ""
        return "\(refusals.count) of the batch's \(count) requests refused, nothing stored: \(first)\(more)"
    }
}
