import Foundation
import Testing

@testable import NotificationStorePostgres

/// The rules that make a rolling upgrade safe (docs/server-mode.md, "Upgrading the schema"): while one worker of a
/// new version migrates, workers of the old version keep running their statements against the new schema. That holds
/// as long as every step after the first only adds: new tables, indexes, functions and triggers, and new columns that
/// old `INSERT`s may leave out (nullable, or with a default). These tests read the shipped steps and fail on anything
/// else, naming the step: a step that must drop, rename or retype something needs a release in two parts (the new
/// code stops using it first; a later version drops it), written down in the docs before it ships.
@Suite("Schema steps keep old workers running (rolling upgrade)")
struct MigrationRulesTests {
    /// What one statement of a step does, as far as the rules care.
    enum Effect: Equatable {
        case createsTable, createsIndex, createsFunction, createsTrigger
        case addsColumn(name: String, insertableByOldCode: Bool)
        case other(String)
    }

    static func effect(of statement: String) -> Effect {
        let words = statement.split(whereSeparator: \.isWhitespace).map(String.init)
        let upper = words.map { $0.uppercased() }
        func starts(_ prefix: String...) -> Bool { upper.starts(with: prefix) }
        if starts("CREATE", "TABLE") { return .createsTable }
        if starts("CREATE", "INDEX") { return .createsIndex }
        if starts("CREATE", "FUNCTION") { return .createsFunction }
        if starts("CREATE", "TRIGGER") { return .createsTrigger }
        if starts("ALTER", "TABLE"), upper.count >= 7, upper[3] == "ADD", upper[4] == "COLUMN",
            !statement.contains(",")
        {
            let rest = upper.dropFirst(6)
            let notNull = zip(rest, rest.dropFirst()).contains { $0 == ("NOT", "NULL") }
            return .addsColumn(name: words[5], insertableByOldCode: !notNull || rest.contains("DEFAULT"))
        }
        return .other(words.prefix(4).joined(separator: " "))
    }

    @Test("steps are numbered 1, 2, 3... without gaps and with distinct names")
    func numbering() {
        let steps = PostgresNotificationStore.migrations
        #expect(steps.map(\.version) == Array(1...steps.count))
        #expect(Set(steps.map(\.name)).count == steps.count)
    }

    @Test("every step after the first only adds what old statements can ignore")
    func additiveSteps() {
        for step in PostgresNotificationStore.migrations.dropFirst() {
            for statement in step.statements {
                switch Self.effect(of: statement) {
                case .createsTable, .createsIndex, .createsFunction, .createsTrigger:
                    continue
                case .addsColumn(let name, let insertable):
                    #expect(
                        insertable,
                        "step \(step.version) (\(step.name)) adds NOT NULL column \(name) without a default: old workers' INSERTs would fail")
                case .other(let head):
                    Issue.record(
                        "step \(step.version) (\(step.name)) does more than add (\(head) ...): old workers running beside the new version may break")
                }
            }
        }
    }

    @Test("an index is never unique on a table an older step made (old workers' writes could start failing)")
    func noNewUniqueness() {
        var tablesSoFar = Set<String>()
        for step in PostgresNotificationStore.migrations {
            var madeHere = Set<String>()
            for statement in step.statements {
                let words = statement.split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
                if words.starts(with: ["create", "table"]), words.count > 2 { madeHere.insert(words[2]) }
                if words.starts(with: ["create", "unique", "index"]), let on = words.firstIndex(of: "on"),
                    on + 1 < words.count
                {
                    #expect(
                        !tablesSoFar.contains(words[on + 1]),
                        "step \(step.version) (\(step.name)) adds a unique index on \(words[on + 1]), made by an older step")
                }
            }
            tablesSoFar.formUnion(madeHere)
        }
    }

    @Test("the rules catch what breaks old workers", arguments: [
        ("ALTER TABLE pending DROP COLUMN spec", false),
        ("ALTER TABLE pending RENAME COLUMN spec TO body", false),
        ("ALTER TABLE pending ALTER COLUMN spec TYPE text", false),
        ("DROP TABLE history", false),
        ("ALTER TABLE push ADD COLUMN weight integer NOT NULL", false),
        ("ALTER TABLE push ADD COLUMN weight integer NOT NULL DEFAULT 0", true),
        ("ALTER TABLE push ADD COLUMN note text", true),
        ("CREATE INDEX pending_app ON pending (app)", true),
    ])
    func classifier(statement: String, allowed: Bool) {
        let effect = Self.effect(of: statement)
        switch effect {
        case .createsTable, .createsIndex, .createsFunction, .createsTrigger:
            #expect(allowed)
        case .addsColumn(_, let insertable):
            #expect(insertable == allowed)
        case .other:
            #expect(!allowed)
        }
    }
}
