// Power cuts during adds, replacements and deliveries, over the power-cut VFS (Tests/Support/CPowerCutVFS).
//
// Usage: PowerCutFixture <store path> <seed> <cuts>
//
// Each round opens the store as a rebooted machine would (only what was synced is there), checks it (it opens,
// `integrity_check` passes, every add acknowledged so far is there: pending, delivered or in the history), arms a
// cut after a random number of file operations, and works on the store until the cut fails a call. It prints one
// line of figures at the end and exits 0, or prints what went wrong and exits 1.
import CPowerCutVFS
import Foundation
import GRDB
import NotificationEngine
import NotificationModel
import NotificationStoreSQLite
import OpenUserNotificationsTesting

let arguments = CommandLine.arguments
guard arguments.count == 4, let seed = UInt64(arguments[2]), let cuts = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: PowerCutFixture <store path> <seed> <cuts>\n".utf8))
    exit(2)
}
let path = arguments[1]
guard powercut_register() == 0 else {
    FileHandle.standardError.write(Data("cannot register the power-cut VFS\n".utf8))
    exit(1)
}

let app = "com.example.powercut"
let start = Date(timeIntervalSince1970: 1_767_603_600)
var generator = SeededGenerator(seed: seed)
var acknowledged: Set<String> = []
var nextID = 0
var operations = (adds: 0, replacements: 0, deliveries: 0)

func fail(_ message: String) -> Never {
    print("FAILED: \(message)")
    exit(1)
}

@MainActor func request(_ identifier: String, title: String) -> PendingRequest {
    var content = NotificationPayload()
    content.title = title
    return PendingRequest(
        appID: app, spec: RequestSpec(identifier: identifier, content: content, trigger: .timeInterval(60, repeats: false)),
        addedAt: start, nextFireDate: start.addingTimeInterval(Double(Int.random(in: 1...3_600, using: &generator))))
}

/// Every request identifier the store holds, pending, delivered or in the history (plain SQL: decoding every
/// request at every cut would make the test quadratic in time).
func storedIdentifiers(_ path: String) throws -> Set<String> {
    var configuration = Configuration()
    configuration.readonly = true
    let queue = try DatabaseQueue(path: path, configuration: configuration)
    return try queue.read { db in
        Set(
            try String.fetchAll(
                db,
                sql: """
                    SELECT identifier FROM pending UNION SELECT identifier FROM delivered
                    UNION SELECT requestIdentifier FROM history
                    """))
    }
}

/// The store of the last cycle, closed before the next reboot: released only, GRDB would close it later on one of
/// its queues, and closing the last connection checkpoints the log behind the next cycle's back.
var lastStore: SQLiteNotificationStore?

/// One power cycle: reboot, check, work until the cut.
@MainActor func cycle(_ round: Int) async {
    try? lastStore?.close()
    lastStore = nil
    powercut_reboot()
    let store: SQLiteNotificationStore
    do {
        store = try SQLiteNotificationStore(path: path)
        lastStore = store
    } catch {
        fail("round \(round): the store does not open after a cut: \(error)")
    }
    do {
        // SQLite's full check every 100 cuts and at the end, its quick check (every page read once) otherwise.
        let report = try store.check(thorough: round % 100 == 0 || round > cuts)
        guard report.isSound else { fail("round \(round): integrity: \(report.problems.prefix(3))") }
        let present = try storedIdentifiers(path)
        let lost = acknowledged.subtracting(present)
        guard lost.isEmpty else { fail("round \(round): acknowledged adds lost: \(lost.sorted().prefix(10))") }
    } catch {
        fail("round \(round): reading after the cut failed: \(error)")
    }
    powercut_arm(Int.random(in: 1...400, using: &generator))
    while true {
        do {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<7:
                let identifier = "r\(nextID)"
                nextID += 1
                _ = try await store.insertPending(request(identifier, title: identifier), cap: nil, at: start)
                acknowledged.insert(identifier)
                operations.adds += 1
            case 7:
                guard let identifier = acknowledged.randomElement(using: &generator) else { continue }
                _ = try await store.insertPending(request(identifier, title: "replaced"), cap: nil, at: start)
                operations.replacements += 1
            default:
                let due = start.addingTimeInterval(3_600)
                for claimed in try await store.claimDue(at: due, leaseUntil: due.addingTimeInterval(60), limit: 3) {
                    let delivered = DeliveredNotification(
                        appID: app, request: claimed.spec, date: due, dueDate: claimed.nextFireDate ?? due, presentation: [.banner])
                    let entry = HistoryEntry(
                        appID: app, requestIdentifier: claimed.identifier, title: claimed.spec.content.title,
                        dueDate: claimed.nextFireDate, actedAt: due, presenter: "test", presentation: [.banner],
                        outcome: .delivered)
                    try await store.completeFire(claimed, nextFireDate: nil, delivered: delivered, history: entry, badge: nil)
                    operations.deliveries += 1
                }
            }
        } catch {
            guard powercut_is_cut() != 0 else { fail("round \(round): a call failed without a cut: \(error)") }
            return
        }
    }
}

for round in 1...cuts { await cycle(round) }
await cycle(cuts + 1)  // the last cut, checked
print(
    "\(cuts) cuts: \(acknowledged.count) acknowledged adds, 0 lost; \(operations.adds) adds, "
        + "\(operations.replacements) replacements, \(operations.deliveries) deliveries; \(powercut_sync_count()) syncs")
