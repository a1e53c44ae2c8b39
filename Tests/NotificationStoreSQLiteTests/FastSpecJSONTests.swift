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

    /// Specs as pushes make them (a push trigger, the payload's `aps` dictionary in `userInfo`), with every kind of
    /// property-list value nested, and every APNs option set and unset.
    static func pushSpecs() throws -> [RequestSpec] {
        let payloads = [
            #"{"aps":{"alert":{"title":"Bench","body":"push"},"sound":"default"}}"#,
            #"{"aps":{"alert":"plain","badge":3,"thread-id":"t/1","category":"c","mutable-content":1},"k":[1,2.5,"x",true,{"n":false}]}"#,
            #"{"aps":{"content-available":1,"interruption-level":"time-sensitive","relevance-score":0.75},"deep":{"a":{"b":{"c":[[],{}]}}},"Z":-0.0,"big":1e300,"small":1e-7}"#,
        ]
        var specs: [RequestSpec] = []
        for (index, text) in payloads.enumerated() {
            let payload = try APNsPayload.parse(Data(text.utf8))
            var spec = RequestSpec(identifier: "apns-\(index)", content: payload.content(bundleDirectory: nil), trigger: .push)
            spec.content.userInfo["when"] = .date(Date(timeIntervalSince1970: 1_767_603_600.25))
            spec.content.userInfo["blob"] = .data(Data([0xFB, 0xFF, 0x00, 0x3F, 0x7E]))
            spec.content.userInfo["list"] = .array([.double(0.1), .double(-2), .integer(0), .dictionary([:]), .array([])])
            specs.append(spec)
        }
        let options = [
            APNsOptions(),
            APNsOptions(expiration: Date(timeIntervalSince1970: 1_767_603_600), priority: 5, collapseID: "c/1", mutableContent: true, contentAvailable: true),
            APNsOptions(expiration: Date(timeIntervalSince1970: 1_767_603_600.5), priority: nil, collapseID: nil, contentAvailable: true),
            APNsOptions(priority: 10, collapseID: "émoji 🎉"),
        ]
        for (index, option) in options.enumerated() {
            var spec = Self.specs()[index]
            spec.apns = option
            specs.append(spec)
        }
        return specs
    }

    @Test("push specs and APNs options: the same bytes as StoredJSON")
    func pushSpecsSameBytes() throws {
        let specs = try Self.pushSpecs()
        #expect(specs[0].content.userInfo["aps"] != nil)
        for spec in specs {
            let fast = try #require(FastSpecJSON.encode(spec), "\(spec.identifier)")
            let stored = try StoredJSON.encode(spec)
            #expect(String(decoding: fast, as: UTF8.self) == String(decoding: stored, as: UTF8.self))
            #expect(try StoredJSON.decode(RequestSpec.self, from: fast) == spec)
        }
    }

    @Test("delivered records: the same bytes as StoredJSON, with and without a history identifier")
    func deliveredSameBytes() throws {
        let specs = try Self.specs() + Self.pushSpecs()
        for (index, spec) in specs.enumerated() {
            let date = Date(timeIntervalSince1970: 1_767_603_600 + Double(index) * 0.001)
            let delivered = DeliveredNotification(
                appID: "com.example.app\(index)", request: spec, date: date, dueDate: date.addingTimeInterval(-0.25),
                presentation: PresentationSet(rawValue: UInt(index % 32)),
                historyID: index.isMultiple(of: 2) ? Int64(index * 1_000_003) : nil)
            let fast = try #require(FastSpecJSON.encode(delivered), "\(spec.identifier)")
            let stored = try StoredJSON.encode(delivered)
            #expect(String(decoding: fast, as: UTF8.self) == String(decoding: stored, as: UTF8.self))
            #expect(try StoredJSON.decode(DeliveredNotification.self, from: fast) == delivered)
        }
        var spec = Self.specs()[0]
        spec.trigger = .location(RegionSpec(identifier: "r", latitude: 1, longitude: 2, radius: 3), repeats: false)
        let uncovered = DeliveredNotification(appID: "a", request: spec, date: Date(), dueDate: Date(), presentation: [])
        #expect(FastSpecJSON.encode(uncovered) == nil)
    }

    @Test("reading: every spec it writes reads back equal to what StoredJSON decodes")
    func readsBack() throws {
        for spec in try Self.specs() + Self.pushSpecs() {
            let bytes = try #require(FastSpecJSON.encode(spec))
            let fast = try #require(FastSpecJSON.decodeSpec(bytes), "\(spec.identifier)")
            #expect(fast == spec)
            #expect(fast == (try StoredJSON.decode(RequestSpec.self, from: bytes)))
        }
    }

    @Test("reading: what it does not cover answers nil, and nothing it reads differs from StoredJSON")
    func readingLeavesTheRest() throws {
        var spec = Self.specs()[2]
        spec.content.title = "new\nline \u{1} tab\t é"
        spec.content.userInfo["v"] = .double(0.1)
        let escaped = try StoredJSON.encode(spec)
        // \u0001 is an escape it does not read.
        #expect(FastSpecJSON.decodeSpec(escaped) == nil)
        spec.content.title = "new\nline tab\t é \r"
        #expect(FastSpecJSON.decodeSpec(try StoredJSON.encode(spec)) == spec)
        let base = String(decoding: try #require(FastSpecJSON.encode(Self.specs()[1])), as: UTF8.self)
        let variants = [
            base.replacingOccurrences(of: #""identifier":"#, with: #""unknown":1,"identifier":"#),
            base.replacingOccurrences(of: #""attachments":[],"#, with: #""attachments":[],"badge":null,"#),
            base.replacingOccurrences(of: #""identifier":"#, with: #""identifier":"x","identifier":"#),
            base.replacingOccurrences(of: #""interruptionLevel":1"#, with: #""interruptionLevel":-1"#),
            base.replacingOccurrences(of: #""summaryArgumentCount":1"#, with: #""summaryArgumentCount":1.5"#),
            base.replacingOccurrences(of: #""relevanceScore":0.5"#, with: #""relevanceScore":1e999"#),
            base.replacingOccurrences(of: #"{"s":"nine"}"#, with: #"{"s":"nine","i":1}"#),
            base.replacingOccurrences(of: #""attachments":[]"#, with: #""attachments":[{}]"#),
            base + " x",
        ]
        for variant in variants {
            #expect(variant != base)
            #expect(FastSpecJSON.decodeSpec(Data(variant.utf8)) == nil, "\(variant)")
        }
    }

    @Test("reading: every prefix and many one-byte changes of stored specs answer nil or what StoredJSON decodes")
    func readingDamagedBytes() throws {
        let specs = try [Self.specs()[1], Self.pushSpecs()[1], Self.pushSpecs()[4]]
        for spec in specs {
            let bytes = Array(try #require(FastSpecJSON.encode(spec)))
            for length in 0..<bytes.count {
                #expect(FastSpecJSON.decodeSpec(Data(bytes[..<length])) == nil)
            }
            let replacements = Array(#"0"\{}[],:-.e9 "#.utf8) + [0x00, 0x0A, 0xC3, 0xFF]
            for position in stride(from: 0, to: bytes.count, by: 3) {
                for replacement in replacements where replacement != bytes[position] {
                    var damaged = bytes
                    damaged[position] = replacement
                    let data = Data(damaged)
                    guard let fast = FastSpecJSON.decodeSpec(data) else { continue }
                    #expect(fast == (try? StoredJSON.decode(RequestSpec.self, from: data)), "at \(position): \(replacement)")
                }
            }
        }
    }

    @Test("APNs request log entries: the same bytes as StoredJSON; a payload with a line break is left to it")
    func apnsLogEntries() throws {
        let body = Data(#"{"aps":{"alert":{"title":"Bench","body":"push / é 🎉 \"q\""},"sound":"default"}}"#.utf8)
        var entries = [
            APNsLogEntry(
                receivedAt: Date(timeIntervalSince1970: 1_767_603_600.123456), connection: "h2c 127.0.0.1:50312 #3",
                environment: .development, method: "POST", path: "/3/device/" + String(repeating: "ab", count: 32),
                headers: [("apns-topic", "com.example.app"), ("authorization", "bearer eyJhbGciOi.secret.tail"), ("apns-id", "x")],
                payload: body, status: 200, reason: nil, apnsID: "00000000-0000-0000-0000-000000000000", latency: 0.000_412_5),
            APNsLogEntry(
                receivedAt: Date(timeIntervalSince1970: 0), connection: "", environment: .production, method: "GET",
                path: "/trivial", headers: [], payload: Data(), status: 405, reason: "MethodNotAllowed", apnsID: nil,
                latency: 12),
        ]
        entries[1].id = 42
        entries[1].headers = [["only"], [], ["a", "b", "c"]]
        for entry in entries {
            let fast = try #require(FastSpecJSON.encode(entry))
            #expect(String(decoding: fast, as: UTF8.self) == String(decoding: try StoredJSON.encode(entry), as: UTF8.self))
            #expect(try StoredJSON.decode(APNsLogEntry.self, from: fast) == entry)
        }
        var multiline = entries[0]
        multiline.payload = "{\n}"
        #expect(FastSpecJSON.encode(multiline) == nil)
    }

    @Test("what it does not cover it leaves to StoredJSON")
    func leavesTheRest() throws {
        var spec = Self.specs()[1]
        spec.content.title = "tab\there"
        #expect(FastSpecJSON.encode(spec) == nil)
        spec = Self.specs()[1]
        spec.content.userInfo["d"] = .double(.infinity)
        #expect(FastSpecJSON.encode(spec) == nil)
        spec = Self.specs()[1]
        spec.content.userInfo["o"] = .dictionary(["clé": .integer(1)])
        #expect(FastSpecJSON.encode(spec) == nil)
        spec = Self.specs()[1]
        spec.content.userInfo["a"] = .array([.string("new\nline")])
        #expect(FastSpecJSON.encode(spec) == nil)
        spec = Self.specs()[1]
        spec.apns = APNsOptions(expiration: Date(timeIntervalSince1970: .nan))
        #expect(FastSpecJSON.encode(spec) == nil)
        spec = Self.specs()[1]
        spec.trigger = .calendar(CalendarComponents(DateComponents(hour: 9)), repeats: true, matching: .apple)
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
