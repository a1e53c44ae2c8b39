import Foundation
import NotificationEngine
import NotificationModel
@testable import NotificationStoreSQLite
import Testing

/// ``FastSpecJSON`` must write exactly the bytes `StoredJSON` writes, or nothing.
@Suite("Fast stored JSON of a spec", .timeLimit(.minutes(5)))
struct FastSpecJSONTests {
    static func specs() -> [RequestSpec] {
        var specs: [RequestSpec] = []
        let texts = ["", "Reminder 1", "quote \" back\\slash /slash", "émoji 🎉 ünïcode", "a:b,c{d}[e]", "100%"]
        for (index, text) in texts.enumerated() {
            var content = NotificationPayload()
            content.title = text
            content.subtitle = texts[(index + 1) % texts.count]
            content.body = texts[(index + 2) % texts.count]
            content.badge = index.isMultiple(of: 2) ? index - 3 : nil
            content.sound = index.isMultiple(of: 3) ? nil : SoundSpec(name: index == 1 ? "bell.oga" : nil, isCritical: index == 4, bundleDirectory: index == 5 ? "/opt/app" : nil)
            content.categoryIdentifier = "cat.\(index)"
            content.threadIdentifier = text
            content.summaryArgument = text
            content.summaryArgumentCount = index
            content.targetContentIdentifier = index == 2 ? "target" : nil
            content.filterCriteria = index == 3 ? "work" : nil
            content.interruptionLevel = UInt(index % 4)
            content.relevanceScore = [0, 0.5, 1, 0.1, 1e-7, 0.3333333333333333][index]
            content.userInfo = [
                "index": .integer(index), "kind": .string(text), "Flag": .bool(index.isMultiple(of: 2)), "a10": .integer(-index),
                "a9": .string("nine"), "_x": .bool(true), "Zed": .integer(Int.max), "zed": .integer(Int.min),
            ]
            let triggers: [TriggerSpec?] = [
                nil, .timeInterval(60, repeats: false), .timeInterval(3_600.5, repeats: true), .timeInterval(1e-3, repeats: false),
                .timeInterval(86_400 * 365 * 40, repeats: false), .timeInterval(0.1 + 0.2, repeats: true),
            ]
            let policies: [MissedFirePolicy] = [.deliver, .skip, .deliverIfWithin(90), .deliverIfWithin(2.5), .deliver, .skip]
            specs.append(RequestSpec(identifier: "id-\(index)/\(text)", content: content, trigger: triggers[index], missedFirePolicy: policies[index]))
        }
        return specs
    }

    @Test("common specs: the same bytes as StoredJSON")
    func sameBytes() throws {
        for spec in Self.specs() {
            let fast = try #require(FastSpecJSON.encode(spec), "\(spec.identifier)")
            let stored = try StoredJSON.encode(spec)
            #expect(String(decoding: fast, as: UTF8.self) == String(decoding: stored, as: UTF8.self))
            #expect(try StoredJSON.decode(RequestSpec.self, from: fast) == spec)
        }
    }

    @Test("what it does not cover it leaves to StoredJSON")
    func leavesTheRest() throws {
        var spec = Self.specs()[1]
        spec.content.title = "tab\there"
        #expect(FastSpecJSON.encode(spec) == nil)
        spec = Self.specs()[1]
        spec.content.userInfo["d"] = .double(1.5)
        #expect(FastSpecJSON.encode(spec) == nil)
        spec = Self.specs()[1]
        spec.trigger = .push
        #expect(FastSpecJSON.encode(spec) == nil)
        spec = Self.specs()[1]
        spec.content.sound = SoundSpec(volume: 0.5)
        #expect(FastSpecJSON.encode(spec) == nil)
        spec = Self.specs()[1]
        spec.content.relevanceScore = .nan
        #expect(FastSpecJSON.encode(spec) == nil)
        spec = Self.specs()[1]
        spec.content.userInfo["clé"] = .integer(1)
        #expect(FastSpecJSON.encode(spec) == nil)
    }
}
