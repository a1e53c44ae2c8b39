import Foundation
import NotificationEngine
import NotificationModel
import NotificationPush
import OpenUserNotificationsTesting
import TestPrograms
import Testing

@testable import NotificationPushGateway

/// How a row of the docs' reason table sets the endpoint up.
enum ReasonSetup: Sendable {
    /// h2c, no provider tokens.
    case plain
    /// Provider tokens required (key `KEY1234567`, no fixed team).
    case tokens
    /// TLS asking for client certificates; the connection presents the named certificate of ``TestCertificates``.
    case certificate(String)
    /// One fault rule.
    case rule(APNsFaultRule)
    /// One fault rule, set once the connection was accepted (a shutdown rule refuses new connections).
    case ruleAfterConnecting(APNsFaultRule)
    /// One request per token per second.
    case rate
    /// An idle timeout of six seconds on the system clock: long enough for the Python client to send its preface
    /// under the whole suite on two loaded cores (with half a second, and once with two seconds on a machine also
    /// building, the endpoint closed the connection before it, as a connection that sends nothing, and no GOAWAY
    /// could be sent).
    case idle
    /// The app unregistered its token first.
    case unregistered
}

/// One row of the table in docs/apns-endpoint.md ("Every answer"): the reason, its status (`nil` for a GOAWAY only),
/// the setup and the requests; the one labelled `it` must be answered with the reason.
struct ReasonCase: Sendable, CustomTestStringConvertible {
    var reason: String
    var status: Int?
    var setup: ReasonSetup
    var steps: @Sendable (_ path: String) -> [FrameStep]

    var testDescription: String { reason }

    init(
        _ reason: String, _ status: Int?, _ setup: ReasonSetup = .plain,
        steps: @escaping @Sendable (_ path: String) -> [FrameStep]
    ) {
        self.reason = reason
        self.status = status
        self.setup = setup
        self.steps = steps
    }

    /// One request labelled `it` to the fixture's token.
    init(
        _ reason: String, _ status: Int?, _ setup: ReasonSetup = .plain, headers: [String: String] = [:],
        extra: [[String]] = [], method: String? = nil, body: String? = nil, path: String? = nil
    ) {
        self.init(reason, status, setup) { fixturePath in
            [
                FrameStep(
                    label: "it", path: path ?? fixturePath, headers: headers, extra: extra, method: method, body: body)
            ]
        }
    }

    static let topic = ["apns-topic": testAppID]
    static let goodToken = "jwt:TEAMAAAAAA:KEY1234567"

    static func rule(_ reason: String) -> ReasonSetup { .rule(try! APNsFaultRule(id: "table", reason: reason)) }

    static let all: [ReasonCase] = [
        ReasonCase("BadCollapseId", 400, headers: ["apns-collapse-id": String(repeating: "x", count: 65)]),
        ReasonCase("BadDeviceToken", 400, path: "/3/device/" + String(repeating: "00", count: 32)),
        ReasonCase("BadExpirationDate", 400, headers: ["apns-expiration": "soon"]),
        ReasonCase("BadMessageId", 400, headers: ["apns-id": "42"]),
        ReasonCase("BadPriority", 400, headers: ["apns-priority": "3"]),
        ReasonCase("BadTopic", 400, headers: ["apns-topic": "a b"]),
        ReasonCase("DeviceTokenNotForTopic", 400, headers: ["apns-topic": "com.example.other"]),
        ReasonCase("DuplicateHeaders", 400, extra: [["apns-priority", "10"], ["apns-priority", "10"]]),
        ReasonCase("IdleTimeout", nil, .idle) { _ in [] },
        ReasonCase("InvalidPushType", 400, headers: ["apns-push-type": "sms"]),
        ReasonCase("MissingDeviceToken", 400, path: "/3/device/"),
        ReasonCase("MissingTopic", 400, .tokens, headers: ["authorization": goodToken]),
        ReasonCase("PayloadEmpty", 400, body: ""),
        ReasonCase("TopicDisallowed", 400, .certificate("development"), headers: ["apns-topic": "com.example.other"]),
        ReasonCase("BadCertificate", 403, .certificate("self"), headers: ["apns-topic": certificateAppID]),
        ReasonCase(
            "BadCertificateEnvironment", 403, .certificate("production"), headers: ["apns-topic": certificateAppID]),
        ReasonCase(
            "ExpiredProviderToken", 403, .tokens, headers: topic.merging(["authorization": goodToken + ":-7200"]) { $1 }
        ),
        ReasonCase("Forbidden", 403, rule("Forbidden")),
        ReasonCase(
            "InvalidProviderToken", 403, .tokens, headers: topic.merging(["authorization": "bearer x.y.z"]) { $1 }),
        ReasonCase("MissingProviderToken", 403, .tokens, headers: topic),
        ReasonCase("UnrelatedKeyIdInToken", 403, rule("UnrelatedKeyIdInToken")),
        ReasonCase("BadEnvironmentKeyIdInToken", 403, rule("BadEnvironmentKeyIdInToken")),
        ReasonCase("BadPath", 404, path: "/3/foo"),
        ReasonCase("MethodNotAllowed", 405, method: "PUT"),
        ReasonCase("ExpiredToken", 410, rule("ExpiredToken")),
        ReasonCase("Unregistered", 410, .unregistered),
        ReasonCase(
            "PayloadTooLarge", 413, body: #"{"aps":{"alert":""# + String(repeating: "x", count: 4_100) + #""}}"#),
        ReasonCase("TooManyProviderTokenUpdates", 429, .tokens) { path in
            [
                FrameStep(label: "before", path: path, headers: topic.merging(["authorization": goodToken]) { $1 }),
                FrameStep(label: "it", path: path, headers: topic.merging(["authorization": goodToken + ":-1"]) { $1 }),
            ]
        },
        ReasonCase("TooManyRequests", 429, .rate) { path in
            [FrameStep(label: "before", path: path), FrameStep(label: "it", path: path)]
        },
        ReasonCase("InternalServerError", 500, rule("InternalServerError")),
        ReasonCase("ServiceUnavailable", 503, rule("ServiceUnavailable")),
        ReasonCase("Shutdown", 503, .ruleAfterConnecting(try! APNsFaultRule(id: "down", action: .shutdown))) { path in
            [FrameStep(label: "it", path: path, thenWaitForGoAway: true)]
        },
    ]
}

/// The docs' table of Apple's reasons: every reason is there, and each row's request is answered with it.
@Suite(
    "APNs endpoint: every reason reachable", .serialized, .timeLimit(.minutes(2)),
    .enabled(if: testPython != nil, "run scripts/test once (it makes a python with h2 and pyjwt) or set OPENUN_PYTHON"))
struct ReasonTableTests {
    /// The reasons of the table in docs/apns-endpoint.md, in order.
    static func documentedReasons() throws -> [String] {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/apns-endpoint.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let section = try #require(text.range(of: "## Every answer"))
        let table = text[section.upperBound...]
        var reasons: [String] = []
        for line in table.split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, Int(cells[0]) != nil else { continue }
            reasons.append(String(cells[1].split(separator: "`")[0]))
        }
        return reasons
    }

    @Test("the docs' table lists every reason of Apple's table, once, and each has a case here")
    func table() throws {
        let documented = try Self.documentedReasons()
        #expect(documented == APNsReason.allReasons.map(\.reason))
        #expect(ReasonCase.all.map(\.reason) == documented)
    }

    @Test("each row's request is answered with its reason", arguments: ReasonCase.all)
    func provoke(_ row: ReasonCase) async throws {
        let folder = try temporaryFolder("gw-reasons")
        defer { try? FileManager.default.removeItem(at: folder) }
        var certificates: TestCertificates?
        defer { certificates?.remove() }
        if case .certificate = row.setup { certificates = try await TestCertificates() }
        var keyfile: String?
        var verifier: ProviderTokenVerifier?
        if case .tokens = row.setup {
            keyfile = try await makeAuthKey(keyID: "KEY1234567", in: folder)
            verifier = try await ProviderTokenVerifier(authKeys: folder.path, teamID: nil)
        }
        // The system clock (so that stopping never waits on a clock nobody moves), except for the per-token rate,
        // whose one-second window must not end between the two requests.
        let fixture = try await EndpointFixture { configuration in
            configuration.providerTokens = verifier
            switch row.setup {
            case .certificate:
                configuration.tls = .init(
                    certificatePath: certificates!.server.certificate, keyPath: certificates!.server.key,
                    clientCertificateAuthorityPath: certificates!.authority)
            case .rule(let rule): configuration.faultRules = { [rule] }
            case .ruleAfterConnecting(let rule):
                // The endpoint reads the rules as it accepts the connection, then for each request.
                let reads = Shared(0)
                configuration.faultRules = {
                    reads.update {
                        $0 += 1; return $0
                    } > 1 ? [rule] : []
                }
            case .rate:
                configuration.clock = ManualNotificationClock(now: Date(timeIntervalSince1970: 1_700_000_000))
                configuration.maximumRequestsPerTokenPerSecond = 1
            case .idle: configuration.idleTimeout = 6
            default: break
            }
        }
        var path = "/3/device/\(fixture.token.hex)"
        if case .certificate = row.setup {
            _ = try await fixture.system.center(for: certificateAppID)
            let token = try await fixture.system.scheduler.store.registerForRemoteNotifications(
                appID: certificateAppID, at: Date(), bundleDirectory: nil, environment: .development
            ).token
            path = "/3/device/\(token.hex)"
        }
        if case .unregistered = row.setup {
            _ = try await fixture.system.scheduler.unregisterForRemoteNotifications(appID: testAppID)
        }
        var client: (certificate: String, key: String)?
        if case .certificate(let name) = row.setup { client = certificates!.client(name) }
        let reports = try await runFrameClient(
            port: fixture.port, steps: row.steps(path), keyfile: keyfile, cafile: certificates?.server.certificate,
            certificate: client, waitForGoAwayFirst: row.status == nil)
        if let status = row.status {
            let report = try #require(reports["it"])
            #expect(report.status == status && report.reason == row.reason, "\(report)")
        } else {
            #expect(reports["idle"]?.goaway == #"{"reason":"\#(row.reason)"}"#, "\(reports)")
        }
        await fixture.endpoint.stop()
    }
}
