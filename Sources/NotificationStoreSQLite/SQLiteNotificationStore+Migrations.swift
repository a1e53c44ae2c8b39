import Foundation
import GRDB
import NotificationModel

extension SQLiteNotificationStore {
    /// The schema's migrations. Once shipped, a migration is frozen: changes go into a new one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // `id` doubles as the request's revision: AUTOINCREMENT never reuses one, so a delivery that raced a
            // replacement never touches the new request.
            try db.create(table: "pending") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("app", .text).notNull()
                t.column("identifier", .text).notNull()
                t.column("spec", .blob).notNull()
                t.column("addedAt", .double).notNull()
                t.column("nextFire", .double)
                t.column("floating", .boolean).notNull()
                t.column("claimUntil", .double)
                t.uniqueKey(["app", "identifier"])
            }
            try db.execute(sql: "CREATE INDEX pending_due ON pending(nextFire) WHERE claimUntil IS NULL")
            try db.execute(sql: "CREATE INDEX pending_claim ON pending(claimUntil) WHERE claimUntil IS NOT NULL")
            try db.execute(sql: "CREATE INDEX pending_app_fire ON pending(app, nextFire)")
            try db.execute(sql: "CREATE INDEX pending_floating ON pending(floating) WHERE floating = 1")

            try db.create(table: "delivered") { t in
                t.column("app", .text).notNull()
                t.column("identifier", .text).notNull()
                t.column("payload", .blob).notNull()
                t.column("date", .double).notNull()
                t.column("historyID", .integer)
                t.primaryKey(["app", "identifier"])
            }
            try db.create(table: "category") { t in
                t.primaryKey("app", .text)
                t.column("payload", .blob).notNull()
            }
            try db.create(table: "app") { t in
                t.primaryKey("id", .text)
                t.column("authorization", .integer).notNull()
                t.column("grantedOptions", .integer).notNull()
                t.column("badge", .integer).notNull()
            }
            try db.create(table: "history") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("app", .text).notNull()
                t.column("requestIdentifier", .text).notNull()
                t.column("title", .text).notNull()
                t.column("due", .double)
                t.column("actedAt", .double).notNull()
                t.column("presenter", .text).notNull()
                t.column("presentation", .integer).notNull()
                t.column("outcome", .text).notNull()
                t.column("detail", .text)
            }
            try db.create(index: "history_app", on: "history", columns: ["app", "id"])
            try db.create(table: "response") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("app", .text).notNull()
                t.column("payload", .blob).notNull()
            }
            try db.create(table: "metadata") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v2-claim-owner") { db in
            // Which process holds a claim, so a restarted engine can take back what a killed one left.
            try db.alter(table: "pending") { t in t.add(column: "claimOwner", .integer) }
        }
        migrator.registerMigration("v3-floating-plan") { db in
            // Floating calendar triggers follow a shared plan row (docs/proposals/0001-floating-plan-table.md).
            try db.alter(table: "pending") { t in
                t.add(column: "calendarKey", .text)
                t.add(column: "firedFor", .double)
            }
            try db.create(table: "floatingPlan") { t in
                t.primaryKey("key", .text)
                t.column("app", .text).notNull()
                t.column("trigger", .blob).notNull()
                t.column("nextFire", .double)
            }
            try db.execute(sql: "CREATE INDEX pending_calendar ON pending(calendarKey) WHERE calendarKey IS NOT NULL")
            for row in try Row.fetchAll(db, sql: "SELECT id, app, spec, nextFire FROM pending WHERE floating = 1") {
                let spec = try JSON.decode(RequestSpec.self, from: row["spec"])
                guard case .calendar(let components, _, let matching)? = spec.trigger else { continue }
                let app: String = row["app"]
                let key = app + "\u{1F}" + matching.rawValue + "\u{1F}" + String(decoding: try JSON.encode(components), as: UTF8.self)
                try db.execute(
                    sql: """
                        INSERT INTO floatingPlan (key, app, trigger, nextFire) VALUES (?, ?, ?, ?)
                        ON CONFLICT(key) DO UPDATE SET nextFire = MIN(COALESCE(nextFire, excluded.nextFire), excluded.nextFire)
                        """,
                    arguments: [key, app, try JSON.encode(spec.trigger), row["nextFire"] as Double?])
                try db.execute(sql: "UPDATE pending SET calendarKey = ?, nextFire = NULL WHERE id = ?", arguments: [key, row["id"] as Int64])
            }
        }
        migrator.registerMigration("v4-region-state") { db in
            // Location triggers: where the device was relative to the region at the last deciding fix ('unknown',
            // 'inside', 'outside'); NULL for every other trigger. The fix itself is never stored (docs/location.md).
            try db.alter(table: "pending") { t in t.add(column: "regionState", .text) }
            try db.execute(sql: "CREATE INDEX pending_region ON pending(app) WHERE regionState IS NOT NULL")
            for row in try Row.fetchAll(db, sql: "SELECT id, spec FROM pending WHERE nextFire IS NULL") {
                let spec = try JSON.decode(RequestSpec.self, from: row["spec"])
                guard case .location? = spec.trigger else { continue }
                try db.execute(sql: "UPDATE pending SET regionState = 'unknown' WHERE id = ?", arguments: [row["id"] as Int64])
            }
        }
        // Replaces "v5-floating-plan-trigger", which was on main for an hour (issue 11) and created the first index
        // only: a store migrated then gets the second index and forgets the old identifier.
        migrator.registerMigration("v5-floating-plan-indexes", merging: ["v5-floating-plan-trigger"]) { db, _ in
            // A re-plan after a zone change moves the plans of one distinct trigger at a time (`UPDATE … WHERE
            // trigger = ?`), whatever the number of apps following it (replanFloatingPlans(dueAfter:nextFireDate:)).
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS floatingPlan_trigger ON floatingPlan(trigger)")
            // The due plans, which claimDue and exhaustedFloatingPlans look for on every pass of the loop, without
            // reading every plan.
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS floatingPlan_due ON floatingPlan(nextFire)")
        }
        migrator.registerMigration("v6-apns-log") { db in
            // The APNs endpoint's request log (`unotify apns log`): a ring of the newest requests, each an
            // APNsLogEntry as JSON.
            try db.create(table: "apnsLog") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("entry", .blob).notNull()
            }
        }
        return migrator
    }
}
