import Foundation
import NotificationEngine
import NotificationModel
import Synchronization
import Testing

/// The behaviour every `NotificationStore` owes the engine, run against the SQLite and the PostgreSQL store, so the
/// two cannot drift. What only one store has (SQLite's files, migrations and checks; PostgreSQL's concurrent
/// workers) is tested in that store's own suite.
@Suite("Store conformance")
struct StoreConformanceTests {
    let start = Date(timeIntervalSince1970: 1_767_603_600)
    let app = "com.example.app"

    func request(_ id: String, fireIn seconds: TimeInterval?, app: String = "com.example.app") -> PendingRequest {
        var content = NotificationPayload()
        content.title = id
        content.userInfo = ["id": .string(id)]
        return PendingRequest(
            appID: app,
            spec: RequestSpec(identifier: id, content: content, trigger: .timeInterval(seconds ?? 1, repeats: false)),
            addedAt: start, nextFireDate: seconds.map { start.addingTimeInterval($0) })
    }

    func history(_ request: PendingRequest, at date: Date) -> HistoryEntry {
        HistoryEntry(
            appID: request.appID, requestIdentifier: request.identifier, title: request.spec.content.title,
            dueDate: request.nextFireDate, actedAt: date, presenter: "test", presentation: [.banner],
            outcome: .delivered)
    }

    func daily(_ id: String, hour: Int, app: String, firesAt date: Date?) -> PendingRequest {
        PendingRequest(
            appID: app,
            spec: RequestSpec(
                identifier: id, content: NotificationPayload(),
                trigger: .calendar(CalendarComponents(DateComponents(hour: hour)), repeats: true, matching: .apple)),
            addedAt: start, nextFireDate: date)
    }

    @Test(
        "a delivered notification replaced by a later fire is listed last among equal dates, with the later content",
        arguments: StoreKind.allCases)
    func deliveredReplacedOrder(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let due = start.addingTimeInterval(10)
            // "a" and "b" fire at the same instant, then "a" again (a collapse identifier, a repeating request).
            var historyIDs: [String: Int64] = [:]
            for (index, id) in ["a", "b", "a"].enumerated() {
                _ = try await store.insertPending(request(id, fireIn: 10), cap: nil, at: start)
                let claimed = try #require(
                    try await store.claimDue(at: due, leaseUntil: due.addingTimeInterval(60), limit: 1).first)
                var spec = claimed.spec
                spec.content.body = "fire \(index)"
                let fire = FireCompletion(
                    request: claimed, nextFireDate: nil,
                    delivered: DeliveredNotification(
                        appID: claimed.appID, request: spec, date: due, dueDate: due, presentation: [.banner]),
                    history: history(claimed, at: due), badge: nil)
                historyIDs[id] = try await store.completeFires([fire]).first
            }
            let delivered = try await store.deliveredNotifications(appID: app)
            #expect(delivered.map(\.identifier) == ["b", "a"])
            #expect(delivered.map(\.request.content.body) == ["fire 1", "fire 2"])
            #expect(delivered.map(\.historyID) == [historyIDs["b"], historyIDs["a"]])
        }
    }

    @Test("everything written reads back", arguments: StoreKind.allCases)
    func readsBack(kind: StoreKind) async throws {
        try await kind.withStore { store in
            _ = try await store.insertPending(request("a", fireIn: 60), cap: nil, at: start)
            try await store.setCategories(
                [CategorySpec(identifier: "c", actions: [ActionSpec(identifier: "x", title: "X")])], appID: app)
            try await store.saveAppState(
                AppState(appID: app, authorization: .authorized, grantedOptions: [.alert, .badge], badge: 4))
            try await store.setMetadata("k", "v")
            try await store.setMetadata("k", "w")
            let pending = try await store.pendingRequests(appID: app)
            #expect(pending.map(\.identifier) == ["a"])
            #expect(pending.first?.spec.content.userInfo == ["id": .string("a")])
            #expect(pending.first?.nextFireDate == start.addingTimeInterval(60))
            #expect(try await store.categories(appID: app).first?.actions.first?.title == "X")
            #expect(try await store.categories(appID: "com.example.none").isEmpty)
            let state = try await store.appState(appID: app)
            #expect(
                state == AppState(appID: app, authorization: .authorized, grantedOptions: [.alert, .badge], badge: 4))
            #expect(try await store.appState(appID: "com.example.none") == nil)
            #expect(try await store.allAppStates().map(\.appID) == [app])
            #expect(try await store.metadata("k") == "w")
            #expect(try await store.metadata("missing") == nil)
            #expect(try await store.nextWakeDate() == start.addingTimeInterval(60))
            #expect(try await store.pendingCount() == 1)
        }
    }

    @Test("a delivery that raced a replacement leaves the new request alone", arguments: StoreKind.allCases)
    func revisionRace(kind: StoreKind) async throws {
        try await kind.withStore { store in
            _ = try await store.insertPending(request("r", fireIn: 10), cap: nil, at: start)
            let due = start.addingTimeInterval(10)
            let claimed = try await store.claimDue(at: due, leaseUntil: due.addingTimeInterval(60), limit: 10)
            #expect(claimed.map(\.identifier) == ["r"])
            // The app replaces the request while the old one is being presented.
            let replacement = try await store.insertPending(request("r", fireIn: 500), cap: nil, at: due).stored
            #expect(replacement.revision != claimed[0].revision)
            try await store.completeFire(
                claimed[0], nextFireDate: nil, delivered: nil, history: history(claimed[0], at: due), badge: nil)
            let pending = try await store.pendingRequests(appID: app)
            #expect(pending.map(\.revision) == [replacement.revision])
            #expect(pending.first?.nextFireDate == start.addingTimeInterval(500))
        }
    }

    @Test("a claim that is never completed expires, and the request is delivered again", arguments: StoreKind.allCases)
    func claimLease(kind: StoreKind) async throws {
        try await kind.withStore { store in
            _ = try await store.insertPending(request("r", fireIn: 10), cap: nil, at: start)
            let due = start.addingTimeInterval(10)
            #expect(try await store.claimDue(at: due, leaseUntil: due.addingTimeInterval(60), limit: 10).count == 1)
            // Another engine on the same store does not take it while claimed.
            #expect(
                try await store.claimDue(
                    at: due.addingTimeInterval(1), leaseUntil: due.addingTimeInterval(61), limit: 10
                )
                .isEmpty)
            #expect(try await store.nextWakeDate() == due.addingTimeInterval(60))
            // The claimant died: after the lease the request is due again.
            #expect(
                try await store.claimDue(
                    at: due.addingTimeInterval(60), leaseUntil: due.addingTimeInterval(120), limit: 10
                ).count == 1)
        }
    }

    @Test(
        "renewing claims extends the ones still held, in one call; completed, released and unknown revisions are not renewed",
        arguments: StoreKind.allCases)
    func renewClaims(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for id in ["done", "released", "held"] {
                _ = try await store.insertPending(request(id, fireIn: 10), cap: nil, at: start)
            }
            let due = start.addingTimeInterval(10)
            let claimed = try await store.claimDue(at: due, leaseUntil: due.addingTimeInterval(60), limit: 10)
            let revision = Dictionary(uniqueKeysWithValues: claimed.map { ($0.identifier, $0.revision) })
            try #require(revision.count == 3)
            let done = try #require(claimed.first { $0.identifier == "done" })
            try await store.completeFire(
                done, nextFireDate: nil, delivered: nil, history: history(done, at: due), badge: nil)
            try await store.releaseClaims(revisions: [revision["released"]!])
            #expect(try await store.renewClaims(revisions: [], leaseUntil: due.addingTimeInterval(100)).isEmpty)
            let renewed = try await store.renewClaims(
                revisions: claimed.map(\.revision) + [999_999], leaseUntil: due.addingTimeInterval(100))
            #expect(renewed == [revision["held"]!])
            // The renewed claim holds past its first lease; the released request is due again.
            let later = try await store.claimDue(
                at: due.addingTimeInterval(90), leaseUntil: due.addingTimeInterval(150), limit: 10)
            #expect(later.map(\.identifier) == ["released"])
            // A renewal never shortens a lease.
            #expect(
                try await store.renewClaims(revisions: [revision["held"]!], leaseUntil: due.addingTimeInterval(20))
                    == [revision["held"]!])
            #expect(
                try await store.claimDue(
                    at: due.addingTimeInterval(99), leaseUntil: due.addingTimeInterval(160), limit: 10
                ).isEmpty)
            #expect(
                try await store.claimDue(
                    at: due.addingTimeInterval(100), leaseUntil: due.addingTimeInterval(160), limit: 10
                ).map(\.identifier) == ["held"])
        }
    }

    @Test("a claim whose lease ended but that nobody took is still renewed", arguments: StoreKind.allCases)
    func renewLapsedClaim(kind: StoreKind) async throws {
        try await kind.withStore { store in
            _ = try await store.insertPending(request("slow", fireIn: 10), cap: nil, at: start)
            let due = start.addingTimeInterval(10)
            let claimed = try await store.claimDue(at: due, leaseUntil: due.addingTimeInterval(60), limit: 10)
            // The engine was late renewing (a loaded machine): the lease ended at due + 60, nobody claimed it since.
            let renewed = try await store.renewClaims(
                revisions: claimed.map(\.revision), leaseUntil: due.addingTimeInterval(130))
            #expect(renewed == claimed.map(\.revision))
            #expect(
                try await store.claimDue(
                    at: due.addingTimeInterval(70), leaseUntil: due.addingTimeInterval(130), limit: 10
                ).isEmpty)
            #expect(try await store.claimedFireDates(revisions: renewed) == [renewed[0]: due])
        }
    }

    @Test(
        "claims ahead take requests due by the horizon, soonest first, up to the limit", arguments: StoreKind.allCases)
    func claimAhead(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for (id, seconds) in [("late", 30.0), ("soon", 10.0), ("later", 20.0), ("other", 15.0)] {
                _ = try await store.insertPending(
                    request(id, fireIn: seconds, app: id == "other" ? "com.example.other" : app), cap: nil, at: start)
            }
            let now = start.addingTimeInterval(9.9)
            #expect(
                try await store.claimDue(
                    at: now, dueBy: now, leaseUntil: now.addingTimeInterval(60), limit: 10, appID: nil
                ).isEmpty)
            let claimed = try await store.claimDue(
                at: now, dueBy: start.addingTimeInterval(25), leaseUntil: now.addingTimeInterval(60), limit: 2,
                appID: app)
            #expect(claimed.map(\.identifier) == ["soon", "later"])
            #expect(claimed.map(\.nextFireDate) == [10, 20].map { start.addingTimeInterval($0) })
            let fires = try await store.claimedFireDates(revisions: claimed.map(\.revision) + [999_999])
            #expect(
                fires == [
                    claimed[0].revision: start.addingTimeInterval(10),
                    claimed[1].revision: start.addingTimeInterval(20),
                ])
            // Released, they are due again at their own instants.
            try await store.releaseClaims(revisions: [claimed[0].revision])
            #expect(
                try await store.claimedFireDates(revisions: claimed.map(\.revision)).keys.sorted() == [
                    claimed[1].revision
                ])
            #expect(try await store.nextWakeDate(appID: app) == start.addingTimeInterval(10))
            #expect(try await store.nextWakeDate(appID: "com.example.other") == start.addingTimeInterval(15))
        }
    }

    @Test(
        "completing a fire reschedules or removes, lists the delivery, sets the badge and records history",
        arguments: StoreKind.allCases)
    func completeFire(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let stored = try await store.insertPending(request("r", fireIn: 10), cap: nil, at: start).stored
            let due = start.addingTimeInterval(10)
            let delivered = DeliveredNotification(
                appID: stored.appID, request: stored.spec, date: due, dueDate: due, presentation: [.banner])
            let historyID = try await store.completeFire(
                stored, nextFireDate: due.addingTimeInterval(60), delivered: delivered,
                history: history(stored, at: due),
                badge: 2)
            #expect(
                try await store.pendingRequests(appID: stored.appID).first?.nextFireDate == due.addingTimeInterval(60))
            #expect(try await store.deliveredNotifications(appID: stored.appID).first?.historyID == historyID)
            #expect(try await store.appState(appID: stored.appID)?.badge == 2)
            #expect(try await store.history(appID: stored.appID, limit: 10).first?.id == historyID)
            let removed = try await store.removeDelivered(appID: stored.appID, identifiers: ["r"], outcome: .removed)
            #expect(removed.count == 1)
            #expect(try await store.history(appID: stored.appID, limit: 10).first?.outcome == .removed)
            #expect(try await store.deliveredNotifications(appID: stored.appID).isEmpty)
        }
    }

    @Test(
        "fires recorded together: each as if alone, history in order, the last badge and delivery win",
        arguments: StoreKind.allCases)
    func completeFires(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let once = try await store.insertPending(request("once", fireIn: 10), cap: nil, at: start).stored
            let again = try await store.insertPending(request("again", fireIn: 10), cap: nil, at: start).stored
            let due = start.addingTimeInterval(10)
            func delivered(_ request: PendingRequest) -> DeliveredNotification {
                DeliveredNotification(
                    appID: request.appID, request: request.spec, date: due, dueDate: due, presentation: [.banner])
            }
            let identifiers = try await store.completeFires([
                FireCompletion(
                    request: once, nextFireDate: nil, delivered: delivered(once), history: history(once, at: due),
                    badge: 1),
                FireCompletion(
                    request: again, nextFireDate: due.addingTimeInterval(60), delivered: delivered(again),
                    history: history(again, at: due), badge: 2),
            ])
            #expect(identifiers.count == 2)
            #expect(identifiers[0] < identifiers[1])
            #expect(try await store.pendingRequests(appID: app).map(\.identifier) == ["again"])
            #expect(try await store.pendingRequests(appID: app).first?.nextFireDate == due.addingTimeInterval(60))
            let listed = try await store.deliveredNotifications(appID: app)
            #expect(Set(listed.compactMap(\.historyID)) == Set(identifiers))
            #expect(try await store.appState(appID: app)?.badge == 2)
            #expect(try await store.history(appID: app, limit: 10).map(\.id) == identifiers.reversed())
            #expect(try await store.completeFires([]).isEmpty)
        }
    }

    @Test(
        "fires of 40 apps recorded together, a repeating request twice among them: as one at a time",
        arguments: StoreKind.allCases)
    func completeFiresAcrossApps(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let due = start.addingTimeInterval(10)
            var fires: [FireCompletion] = []
            for index in 0..<40 {
                let stored = try await store.insertPending(
                    request("r\(index)", fireIn: 10, app: "app\(index)"), cap: nil, at: start
                ).stored
                fires.append(Self.fire(stored, at: due, next: nil, history: history(stored, at: due), badge: index))
            }
            // A repeating request fires at 10 s and again at 70 s before either fire is recorded (the PostgreSQL
            // store records the two in separate transactions, in order).
            let first = try await store.insertPending(request("every", fireIn: 10), cap: nil, at: start).stored
            var second = first
            second.nextFireDate = start.addingTimeInterval(70)
            let firstFire = Self.fire(
                first, at: due, next: second.nextFireDate, history: history(first, at: due), badge: nil)
            fires.insert(firstFire, at: 5)
            fires.append(
                Self.fire(
                    second, at: start.addingTimeInterval(70), next: start.addingTimeInterval(130),
                    history: history(second, at: start.addingTimeInterval(70)), badge: 7))
            let identifiers = try await store.completeFires(fires)
            #expect(identifiers.count == 42)
            #expect(identifiers == identifiers.sorted() && Set(identifiers).count == 42)
            for index in 0..<40 {
                let app = "app\(index)"
                #expect(try await store.pendingRequests(appID: app).isEmpty)
                #expect(try await store.appState(appID: app)?.badge == index)
                #expect(
                    try await store.deliveredNotifications(appID: app).map(\.historyID)
                        == [identifiers[index < 5 ? index : index + 1]])
            }
            #expect(try await store.pendingRequests(appID: app).map(\.nextFireDate) == [start.addingTimeInterval(130)])
            #expect(try await store.deliveredNotifications(appID: app).map(\.historyID) == [identifiers.last])
            #expect(try await store.appState(appID: app)?.badge == 7)
            #expect(try await store.history(appID: nil, limit: 100).compactMap(\.id).sorted() == identifiers)
        }
    }

    @Test("metadata read together: the keys that have a value, as one at a time reads them", arguments: StoreKind.allCases)
    func metadataTogether(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.setMetadata("push.app.x", "com.example.app")
            try await store.setMetadata("push.registration.x", "{}")
            try await store.setMetadata("empty", "")
            let values = try await store.metadata(keys: ["push.app.x", "push.registration.x", "empty", "absent"])
            #expect(values == ["push.app.x": "com.example.app", "push.registration.x": "{}", "empty": ""])
            #expect(try await store.metadata(keys: []).isEmpty)
        }
    }

    @Test("the states and categories of many apps read at once: those the store has, as one at a time reads them",
        arguments: StoreKind.allCases)
    func batchReadsOfApps(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let apps = (0..<40).map { "app\($0)" }
            for (index, app) in apps.enumerated() where index % 2 == 0 {
                try await store.saveAppState(
                    AppState(appID: app, authorization: .authorized, grantedOptions: [.alert], badge: index))
            }
            for (index, app) in apps.enumerated() where index % 3 == 0 {
                try await store.setCategories([CategorySpec(identifier: "c\(index)", actions: [])], appID: app)
            }
            try await store.setCategories([], appID: "app1")
            let asked = apps + ["unknown", "app0"]
            let states = try await store.appStates(appIDs: asked)
            let categories = try await store.categories(appIDs: asked)
            #expect(Set(states.keys) == Set(apps.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)))
            #expect(Set(categories.keys) == Set(apps.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)))
            for app in asked {
                #expect(states[app] == (try await store.appState(appID: app)))
                #expect(categories[app] ?? [] == (try await store.categories(appID: app)))
            }
            #expect(try await store.appStates(appIDs: []).isEmpty)
            #expect(try await store.categories(appIDs: []).isEmpty)
        }
    }

    /// A delivered fire of `request` at `date`, for ``NotificationStore/completeFires(_:)``.
    static func fire(_ request: PendingRequest, at date: Date, next: Date?, history: HistoryEntry, badge: Int?)
        -> FireCompletion
    {
        FireCompletion(
            request: request, nextFireDate: next,
            delivered: DeliveredNotification(
                appID: request.appID, request: request.spec, date: date, dueDate: date, presentation: [.banner]),
            history: history, badge: badge)
    }

    @Test(
        "queued responses are kept in order until acknowledged; a response sets the history outcome",
        arguments: StoreKind.allCases)
    func queuedResponses(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let stored = try await store.insertPending(request("r", fireIn: 10), cap: nil, at: start).stored
            var delivered = DeliveredNotification(
                appID: stored.appID, request: stored.spec, date: start, dueDate: start, presentation: [.banner])
            delivered.historyID = try await store.completeFire(
                stored, nextFireDate: nil, delivered: delivered, history: history(stored, at: start), badge: nil)
            for action in ["one", "two"] {
                try await store.recordResponse(
                    ResponseSpec(notification: delivered, actionIdentifier: action, userText: "hi", date: start),
                    outcome: .action, enqueue: true)
            }
            let queued = try await store.queuedResponses(appID: stored.appID)
            #expect(queued.map(\.response.actionIdentifier) == ["one", "two"])
            #expect(try await store.deliveredNotifications(appID: stored.appID).isEmpty)
            let entry = try await store.history(appID: stored.appID, limit: 1).first
            #expect(entry?.outcome == .action)
            #expect(entry?.detail == "two: hi")
            try await store.removeQueuedResponse(id: queued[0].id)
            #expect(try await store.queuedResponses(appID: stored.appID).map(\.response.actionIdentifier) == ["two"])
            #expect(try await store.queuedResponses(appID: "com.example.other").isEmpty)
        }
    }

    @Test("the cap ignores requests without a date and keeps ties in insertion order", arguments: StoreKind.allCases)
    func capTies(kind: StoreKind) async throws {
        try await kind.withStore { store in
            _ = try await store.insertPending(request("undated", fireIn: nil), cap: 2, at: start)
            for id in ["a", "b", "c"] { _ = try await store.insertPending(request(id, fireIn: 60), cap: 2, at: start) }
            #expect(Set(try await store.pendingRequests(appID: app).map(\.identifier)) == ["undated", "a", "b"])
            let discarded = try await store.history(appID: app, limit: 5)
            #expect(discarded.map(\.requestIdentifier) == ["c"])
            #expect(discarded.first?.outcome == .discarded)
        }
    }

    @Test(
        "the store's cap wins over the caller's, and an insertion reports what it discarded",
        arguments: StoreKind.allCases)
    func storePolicyCap(kind: StoreKind) async throws {
        try await kind.withStore { store in
            #expect(try await store.policy() == StorePolicy())
            try await store.setPolicy(StorePolicy(pendingCap: .limit(1), authorizationPolicy: nil))
            #expect(try await store.policy().pendingCap == .limit(1))
            _ = try await store.insertPending(request("later", fireIn: 60), cap: 64, at: start)
            let insertion = try await store.insertPending(request("sooner", fireIn: 30), cap: 64, at: start)
            #expect(insertion.discarded.map(\.identifier) == ["later"])
            #expect(try await store.pendingRequests(appID: app).map(\.identifier) == ["sooner"])
            // Unlimited in the store also wins over the caller's cap.
            try await store.setPolicy(StorePolicy(pendingCap: .unlimited))
            _ = try await store.insertPending(request("third", fireIn: 90), cap: 1, at: start)
            #expect(try await store.pendingCount() == 2)
            try await store.setPolicy(StorePolicy())
            #expect(try await store.policy() == StorePolicy())
        }
    }

    @Test(
        "a batch replaces by identifier, earlier in the batch too, then caps each app once",
        arguments: StoreKind.allCases)
    func batch(kind: StoreKind) async throws {
        try await kind.withStore { store in
            _ = try await store.insertPending(request("x", fireIn: 5), cap: nil, at: start)
            let discarded = try await store.insertPending(
                batch: [
                    request("a", fireIn: 10), request("x", fireIn: 50), request("a", fireIn: 20),
                    request("b", fireIn: 40), request("o", fireIn: 1, app: "com.example.other"),
                ], cap: 2, at: start)
            #expect(discarded.map(\.identifier) == ["x"])
            let pending = try await store.pendingRequests(appID: app)
            #expect(pending.map(\.identifier) == ["a", "b"])
            #expect(pending.first?.nextFireDate == start.addingTimeInterval(20))
            #expect(try await store.pendingCounts() == [app: 2, "com.example.other": 1])
            #expect(try await store.insertPending(batch: [], cap: 1, at: start).isEmpty)
        }
    }

    @Test(
        "a batch of allowed apps leaves out the denied apps' requests, in the same transaction, and caps the rest",
        arguments: StoreKind.allCases)
    func batchOfAllowedApps(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let denied = "com.example.denied"
            try await store.saveAppState(AppState(appID: denied, authorization: .denied))
            try await store.saveAppState(AppState(appID: app, authorization: .authorized))
            _ = try await store.insertPending(request("x", fireIn: 5), cap: nil, at: start)
            let inserted = try await store.insertPendingOfAllowedApps(
                batch: [
                    request("a", fireIn: 10), request("d", fireIn: 1, app: denied), request("b", fireIn: 20),
                    request("o", fireIn: 1, app: "com.example.never-asked"),
                ], cap: 2, at: start)
            #expect(inserted.deniedAppIDs == [denied])
            #expect(inserted.discarded.map(\.identifier) == ["b"])
            #expect(try await store.pendingRequests(appID: app).map(\.identifier) == ["x", "a"])
            #expect(try await store.pendingCounts() == [app: 2, "com.example.never-asked": 1])
            let none = try await store.insertPendingOfAllowedApps(batch: [], cap: 2, at: start)
            #expect(none == PendingBatchInsertion(discarded: [], deniedAppIDs: []))
        }
    }

    @Test(
        "fires recorded and a batch stored by one call: each part as its own call would do it, the fires first",
        arguments: StoreKind.allCases)
    func firesAndInsertion(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let denied = "com.example.denied"
            try await store.saveAppState(AppState(appID: denied, authorization: .denied))
            let due = start.addingTimeInterval(10)
            let lease = due.addingTimeInterval(60)
            let a = try await store.insertPending(request("a", fireIn: 10), cap: nil, at: start).stored
            let b = try await store.insertPending(request("b", fireIn: 10), cap: nil, at: start).stored
            #expect(try await store.claimDue(at: due, leaseUntil: lease, limit: 10).count == 2)
            let fires = [a, b].map { fired in
                FireCompletion(
                    request: fired, nextFireDate: nil,
                    delivered: DeliveredNotification(
                        appID: app, request: fired.spec, date: due, dueDate: due, presentation: [.banner]),
                    history: history(fired, at: due), badge: nil)
            }
            // A push replacing the fired "b" (its collapse identifier): recorded first, then replaced.
            let outcome = await store.completeFires(
                fires, insertingPending: [request("b", fireIn: 10), request("d", fireIn: 10, app: denied)], cap: nil,
                at: due, leavingOutDenied: true, claimedUntil: lease)
            let identifiers = try outcome.historyIDs.get()
            #expect(identifiers.count == 2)
            let insertion = try outcome.insertion.get()
            #expect(insertion.deniedAppIDs == [denied])
            #expect(insertion.claimed.map(\.identifier) == ["b"])
            let pending = try await store.pendingRequests(appID: app)
            #expect(pending.map(\.identifier) == ["b"])
            #expect(pending.first?.revision == insertion.claimed.first?.revision)
            #expect(try await store.pendingRequests(appID: denied).isEmpty)
            #expect(try await store.deliveredNotifications(appID: app).map(\.identifier).sorted() == ["a", "b"])
            #expect(try await store.history(appID: app, limit: 10).count == 2)
            // Claimed by this store until the lease, as a claimed batch is.
            #expect(try await store.claimDue(at: due, leaseUntil: lease, limit: 10).isEmpty)
            #expect(
                try await store.claimedFireDates(revisions: insertion.claimed.map(\.revision))
                    == [insertion.claimed[0].revision: due])

            // Either part may be empty; without a lease nothing is claimed, and without the check nothing is left out.
            let alone = await store.completeFires(
                [], insertingPending: [request("e", fireIn: 20), request("f", fireIn: 20, app: denied)], cap: nil,
                at: due, leavingOutDenied: false, claimedUntil: nil)
            #expect(try alone.historyIDs.get().isEmpty)
            #expect(try alone.insertion.get() == PendingBatchInsertion(discarded: [], deniedAppIDs: []))
            #expect(try await store.pendingRequests(appID: denied).map(\.identifier) == ["f"])
            let none = await store.completeFires(
                [], insertingPending: [], cap: nil, at: due, leavingOutDenied: true, claimedUntil: lease)
            #expect(try none.historyIDs.get().isEmpty)
            #expect(try none.insertion.get() == PendingBatchInsertion(discarded: [], deniedAppIDs: []))
        }
    }

    @Test(
        "a batch stored claimed: its dated requests are claimed by this store until the lease, as a claim would take them; a replaced, discarded or undated one is not",
        arguments: StoreKind.allCases)
    func batchStoredClaimed(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let denied = "com.example.denied"
            try await store.saveAppState(AppState(appID: denied, authorization: .denied))
            let lease = start.addingTimeInterval(60)
            let inserted = try await store.insertPendingOfAllowedApps(
                batch: [
                    request("a", fireIn: 0), request("d", fireIn: 0, app: denied), request("b", fireIn: 0),
                    request("u", fireIn: nil), request("a", fireIn: 0),
                ], cap: nil, at: start, claimedUntil: lease)
            #expect(inserted.deniedAppIDs == [denied])
            #expect(inserted.discarded.isEmpty)
            // The second "a" replaced the first: one claim each for "a" and "b"; the undated "u" is stored unclaimed.
            #expect(inserted.claimed.map(\.identifier).sorted() == ["a", "b"])
            let pending = try await store.pendingRequests(appID: app)
            #expect(pending.map(\.identifier).sorted() == ["a", "b", "u"])
            for claimed in inserted.claimed {
                let row = pending.first { $0.identifier == claimed.identifier }
                #expect(claimed.revision == row?.revision)
                #expect(claimed.nextFireDate == start)
                #expect(claimed.addedAt == start)
                #expect(claimed.spec == row?.spec)
            }
            let revisions = inserted.claimed.map(\.revision)
            // Claimed by this store: what a claim answers for them, and nobody claims them again before the lease.
            let dates = Dictionary(uniqueKeysWithValues: revisions.map { ($0, start) })
            #expect(try await store.claimedFireDates(revisions: revisions) == dates)
            #expect(try await store.claimDue(at: start, leaseUntil: lease, limit: 10).isEmpty)
            #expect(try await store.nextWakeDate() == lease)
            #expect(Set(try await store.renewClaims(revisions: revisions, leaseUntil: lease)) == Set(revisions))
            // Never completed (the process died): after the lease another engine delivers them.
            let again = try await store.claimDue(at: lease, leaseUntil: lease.addingTimeInterval(60), limit: 10)
            #expect(Set(again.map(\.revision)) == Set(revisions))

            // The cap discards a claimed request in the same transaction: it is not among the claimed ones.
            let other = "com.example.capped"
            _ = try await store.insertPending(request("x", fireIn: -5, app: other), cap: nil, at: start)
            let capped = try await store.insertPendingOfAllowedApps(
                batch: [request("c", fireIn: 0, app: other)], cap: 1, at: start, claimedUntil: lease)
            #expect(capped.discarded.map(\.identifier) == ["c"])
            #expect(capped.claimed.isEmpty)
            #expect(try await store.pendingRequests(appID: other).map(\.identifier) == ["x"])
        }
    }

    @Test(
        "floating requests of a batch share one plan per app and components, at the soonest instant; an undated one leaves it undated",
        arguments: StoreKind.allCases)
    func batchPlans(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let one = start.addingTimeInterval(3_600)
            let two = start.addingTimeInterval(7_200)
            _ = try await store.insertPending(daily("old", hour: 7, app: app, firesAt: two), cap: nil, at: start)
            _ = try await store.insertPending(
                batch: [
                    daily("a", hour: 7, app: app, firesAt: two), daily("b", hour: 7, app: app, firesAt: one),
                    daily("c", hour: 8, app: app, firesAt: two), daily("c", hour: 8, app: app, firesAt: nil),
                    daily("d", hour: 7, app: "com.example.other", firesAt: two),
                ], cap: nil, at: start)
            let plans = try await store.floatingPlans(dueAfter: .distantPast)
            #expect(plans.count == 2)  // hour 7 of both apps; the hour-8 plan is undated
            var byHour: [String: Date?] = [:]
            for plan in try await store.pendingRequests(appID: app) { byHour[plan.identifier] = plan.nextFireDate }
            #expect(byHour == ["old": one, "a": one, "b": one, "c": nil])
            #expect(try await store.pendingRequests(appID: "com.example.other").map(\.nextFireDate) == [two])
            #expect(try await store.nextWakeDate(appID: app) == one)
        }
    }

    @Test(
        "removing by identifiers or all of an app's requests returns them and leaves other apps alone",
        arguments: StoreKind.allCases)
    func removePending(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for id in ["a", "b", "c"] {
                _ = try await store.insertPending(request(id, fireIn: 60), cap: nil, at: start)
            }
            _ = try await store.insertPending(request("a", fireIn: 60, app: "com.example.other"), cap: nil, at: start)
            #expect(try await store.removePending(appID: app, identifiers: ["b", "zz"]).map(\.identifier) == ["b"])
            #expect(try await store.removePending(appID: app, identifiers: nil).map(\.identifier) == ["a", "c"])
            #expect(try await store.pendingRequests(appID: app).isEmpty)
            #expect(try await store.pendingCounts() == ["com.example.other": 1])
        }
    }

    @Test(
        "floating requests share a plan: claimed together, the plan moves on once all have fired",
        arguments: StoreKind.allCases)
    func floatingPlanLifecycle(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let seven = start.addingTimeInterval(3_600)
            _ = try await store.insertPending(daily("one", hour: 7, app: app, firesAt: seven), cap: nil, at: start)
            _ = try await store.insertPending(daily("two", hour: 7, app: app, firesAt: seven), cap: nil, at: start)
            let plans = try await store.floatingPlans(dueAfter: start)
            #expect(plans.count == 1)
            #expect(plans.first?.nextFireDate == seven)
            #expect(try await store.nextWakeDate() == seven)
            #expect(try await store.exhaustedFloatingPlans(at: seven, appID: nil).isEmpty)
            let claimed = try await store.claimDue(at: seven, leaseUntil: seven.addingTimeInterval(60), limit: 10)
            #expect(claimed.map(\.identifier).sorted() == ["one", "two"])
            #expect(claimed.allSatisfy { $0.nextFireDate == seven })
            let next = seven.addingTimeInterval(86_400)
            try await store.completeFire(
                claimed[0], nextFireDate: next, delivered: nil, history: history(claimed[0], at: seven), badge: nil)
            #expect(try await store.exhaustedFloatingPlans(at: seven, appID: app).isEmpty)
            try await store.completeFire(
                claimed[1], nextFireDate: next, delivered: nil, history: history(claimed[1], at: seven), badge: nil)
            let exhausted = try await store.exhaustedFloatingPlans(at: seven, appID: app)
            #expect(exhausted.map(\.key) == plans.map(\.key))
            #expect(try await store.exhaustedFloatingPlans(at: seven, appID: "com.example.other").isEmpty)
            try await store.updateFloatingPlans([FloatingPlanUpdate(key: exhausted[0].key, nextFireDate: next)])
            #expect(try await store.pendingRequests(appID: app).map(\.nextFireDate) == [next, next])
            #expect(try await store.nextWakeDate() == next)
            // Removing every follower ends the plan; a plan that never matches again ends its followers.
            _ = try await store.removePending(appID: app, identifiers: ["one", "two"])
            #expect(try await store.floatingPlans(dueAfter: .distantPast).isEmpty)
            _ = try await store.insertPending(daily("three", hour: 8, app: app, firesAt: next), cap: nil, at: start)
            let key = try #require(try await store.floatingPlans(dueAfter: .distantPast).first?.key)
            try await store.updateFloatingPlans([FloatingPlanUpdate(key: key, nextFireDate: nil)])
            #expect(try await store.pendingCount() == 0)
            #expect(try await store.floatingPlans(dueAfter: .distantPast).isEmpty)
        }
    }

    @Test("a request added after a plan's instant waits for the next one", arguments: StoreKind.allCases)
    func floatingAddedLate(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let seven = start.addingTimeInterval(3_600)
            _ = try await store.insertPending(daily("early", hour: 7, app: app, firesAt: seven), cap: nil, at: start)
            var late = daily("late", hour: 7, app: app, firesAt: seven)
            late.addedAt = seven.addingTimeInterval(1)
            _ = try await store.insertPending(late, cap: nil, at: late.addedAt)
            let claimed = try await store.claimDue(
                at: seven.addingTimeInterval(2), leaseUntil: seven.addingTimeInterval(60), limit: 10)
            #expect(claimed.map(\.identifier) == ["early"])
        }
    }

    @Test(
        "a re-plan asks once per distinct trigger, moves every app's plan of it, and leaves due plans alone",
        arguments: StoreKind.allCases)
    func replanPerTrigger(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for app in ["com.example.a", "com.example.b", "com.example.c"] {
                _ = try await store.insertPending(
                    daily("seven", hour: 7, app: app, firesAt: start.addingTimeInterval(3_600)), cap: nil, at: start)
                _ = try await store.insertPending(
                    daily("eight", hour: 8, app: app, firesAt: start.addingTimeInterval(7_200)), cap: nil, at: start)
            }
            // Already due: fires for its instant, then moves on as usual.
            _ = try await store.insertPending(
                daily("due", hour: 6, app: "com.example.a", firesAt: start), cap: nil, at: start)
            let askedFor = Mutex<[Int?]>([])
            let moved = try await store.replanFloatingPlans(dueAfter: start) { [start] trigger in
                guard case .calendar(let components, _, _) = trigger else { return nil }
                askedFor.withLock { $0.append(components.hour) }
                return start.addingTimeInterval(Double(components.hour ?? 0) * 1_000)
            }
            let asked = askedFor.withLock { $0 }
            #expect(asked.sorted { ($0 ?? 0) < ($1 ?? 0) } == [7, 8])
            #expect(moved == 6)
            let plans = try await store.floatingPlans(dueAfter: .distantPast)
            #expect(plans.count == 7)
            for plan in plans {
                guard case .calendar(let components, _, _) = plan.trigger else { continue }
                let expected =
                    components.hour == 6 ? start : start.addingTimeInterval(Double(components.hour ?? 0) * 1_000)
                #expect(plan.nextFireDate == expected)
            }
            #expect(
                try await store.pendingRequests(appID: "com.example.b").map(\.nextFireDate)
                    == [7_000, 8_000].map { start.addingTimeInterval($0) })
        }
    }

    @Test(
        "a re-plan that finds no next match ends the plans of that trigger and the requests following them",
        arguments: StoreKind.allCases)
    func replanEnds(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for app in ["com.example.a", "com.example.b"] {
                _ = try await store.insertPending(
                    daily("seven", hour: 7, app: app, firesAt: start.addingTimeInterval(3_600)), cap: nil, at: start)
                _ = try await store.insertPending(
                    daily("eight", hour: 8, app: app, firesAt: start.addingTimeInterval(7_200)), cap: nil, at: start)
            }
            let moved = try await store.replanFloatingPlans(dueAfter: start) { [start] trigger in
                guard case .calendar(let components, _, _) = trigger, components.hour == 8 else { return nil }
                return start.addingTimeInterval(9_000)
            }
            #expect(moved == 4)
            #expect(try await store.floatingPlans(dueAfter: .distantPast).count == 2)
            #expect(try await store.pendingRequests(appID: "com.example.a").map(\.identifier) == ["eight"])
            #expect(try await store.pendingCount() == 2)
        }
    }

    struct ReplanFailure: Error {}

    @Test("a re-plan whose date function throws changes nothing and rethrows its error", arguments: StoreKind.allCases)
    func replanThrows(kind: StoreKind) async throws {
        try await kind.withStore { store in
            _ = try await store.insertPending(
                daily("seven", hour: 7, app: app, firesAt: start.addingTimeInterval(3_600)), cap: nil, at: start)
            _ = try await store.insertPending(
                daily("eight", hour: 8, app: app, firesAt: start.addingTimeInterval(7_200)), cap: nil, at: start)
            let before = try await store.floatingPlans(dueAfter: .distantPast).sorted { $0.key < $1.key }
            await #expect(throws: ReplanFailure.self) {
                _ = try await store.replanFloatingPlans(dueAfter: start) { [start] trigger in
                    guard case .calendar(let components, _, _) = trigger, components.hour == 8 else {
                        return start.addingTimeInterval(1)
                    }
                    throw ReplanFailure()
                }
            }
            #expect(try await store.floatingPlans(dueAfter: .distantPast).sorted { $0.key < $1.key } == before)
        }
    }

    @Test(
        "location requests start unknown; a crossing that notifies makes them due; repeating ones wait again",
        arguments: StoreKind.allCases)
    func locationRequests(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let tower = RegionSpec(identifier: "tower", latitude: 48.8584, longitude: 2.2945, radius: 150)
            let once = PendingRequest(
                appID: app,
                spec: RequestSpec(
                    identifier: "once", content: NotificationPayload(), trigger: .location(tower, repeats: false)),
                addedAt: start, nextFireDate: nil)
            let again = PendingRequest(
                appID: app,
                spec: RequestSpec(
                    identifier: "again", content: NotificationPayload(), trigger: .location(tower, repeats: true)),
                addedAt: start, nextFireDate: nil)
            _ = try await store.insertPending(once, cap: nil, at: start)
            _ = try await store.insertPending(again, cap: nil, at: start)
            _ = try await store.insertPending(request("timer", fireIn: 600), cap: nil, at: start)
            let located = try await store.locationRequests(appID: app)
            #expect(located.map(\.request.identifier) == ["once", "again"])
            #expect(located.allSatisfy { $0.state == .unknown })
            #expect(try await store.locationRequests(appID: "com.example.other").isEmpty)
            let entered = start.addingTimeInterval(30)
            try await store.updateRegionStates(
                located.map { RegionStateUpdate(revision: $0.request.revision, state: .inside, dueAt: entered) }
                    + [RegionStateUpdate(revision: 999_999, state: .outside)])
            #expect(try await store.locationRequests(appID: nil).map(\.state) == [.inside, .inside])
            #expect(try await store.nextWakeDate() == entered)
            let claimed = try await store.claimDue(at: entered, leaseUntil: entered.addingTimeInterval(60), limit: 10)
            #expect(claimed.map(\.identifier).sorted() == ["again", "once"])
            for request in claimed {
                try await store.completeFire(
                    request, nextFireDate: nil, delivered: nil, history: history(request, at: entered), badge: nil)
            }
            // The repeating one waits, undated, for its next crossing; the other is done.
            let left = try await store.pendingRequests(appID: app)
            #expect(left.map(\.identifier) == ["again", "timer"])
            #expect(left.first?.nextFireDate == nil)
            #expect(try await store.nextWakeDate() == start.addingTimeInterval(600))
        }
    }

    @Test("history is newest first, per app or for all, up to the limit", arguments: StoreKind.allCases)
    func historyOrder(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for (index, app) in ["com.example.a", "com.example.b", "com.example.a"].enumerated() {
                try await store.appendHistory(
                    HistoryEntry(
                        appID: app, requestIdentifier: "r\(index)", title: "T", dueDate: nil,
                        actedAt: start.addingTimeInterval(Double(index)), presenter: "test", presentation: [.list],
                        outcome: .delivered, detail: index == 0 ? "first" : nil))
            }
            #expect(try await store.history(appID: nil, limit: 10).map(\.requestIdentifier) == ["r2", "r1", "r0"])
            let a = try await store.history(appID: "com.example.a", limit: 10)
            #expect(a.map(\.requestIdentifier) == ["r2", "r0"])
            #expect(a.last?.detail == "first")
            #expect(a.last?.presentation == [.list])
            #expect(a.last?.actedAt == start)
            #expect(try await store.history(appID: nil, limit: 1).map(\.requestIdentifier) == ["r2"])
            #expect(try await store.history(appID: nil, limit: 0).isEmpty)
            #expect(try await store.history(appID: nil, limit: -1).count == 3)
        }
    }

    @Test(
        "the APNs log keeps its newest entries and reads after an identifier, oldest first",
        arguments: StoreKind.allCases)
    func apnsLogRing(kind: StoreKind) async throws {
        try await kind.withStore { store in
            func entry(_ n: Int) -> APNsLogEntry {
                APNsLogEntry(
                    receivedAt: start.addingTimeInterval(Double(n)), connection: "c", environment: .development,
                    method: "POST", path: "/3/device/\(n)", headers: [("apns-topic", "com.example.app")],
                    payload: Data("{}".utf8), status: 200, reason: nil, apnsID: "id-\(n)", latency: 0.001)
            }
            try await store.appendAPNsLog((0..<3).map(entry), keep: 4)
            try await store.appendAPNsLog((3..<6).map(entry), keep: 4)
            let all = try await store.apnsLog(afterID: 0, limit: 100)
            #expect(all.map(\.apnsID) == ["id-2", "id-3", "id-4", "id-5"])
            #expect(all.first?.topic == "com.example.app")
            #expect(try await store.apnsLog(afterID: all[1].id, limit: 100).map(\.apnsID) == ["id-4", "id-5"])
            #expect(try await store.apnsLog(afterID: 0, limit: 1).map(\.apnsID) == ["id-5"])
            try await store.appendAPNsLog([], keep: 0)
            #expect(try await store.apnsLog(afterID: 0, limit: 100).count == 4)
        }
    }

    @Test("launch commands are kept per app and removed with nil", arguments: StoreKind.allCases)
    func launchCommands(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.setLaunchCommand(["/usr/bin/app", "--respond"], appID: app)
            #expect(try await store.launchCommand(appID: app) == ["/usr/bin/app", "--respond"])
            try await store.setLaunchCommand(nil, appID: app)
            #expect(try await store.launchCommand(appID: app) == nil)
        }
    }
}
