import Foundation
import NotificationAPNsProvider
import NotificationModel
import TestPrograms
import Testing

/// What needs no server: local checks, the retry delays.
@Suite("APNs client, local rules")
struct APNsClientUnitTests {
    static func notification(pushType: APNsPushType = .alert, bytes: Int) -> APNsNotification {
        let overhead = #"{"aps":{"alert":""}}"#.utf8.count
        let payload = Data(#"{"aps":{"alert":"\#(String(repeating: "x", count: bytes - overhead))"}}"#.utf8)
        return APNsNotification(
            deviceToken: String(repeating: "ab", count: 32), topic: "com.example.app", pushType: pushType,
            payload: payload)
    }

    @Test(
        "payload limits: 4096 bytes, 5120 for VoIP",
        arguments: [
            (APNsPushType.alert, 4_096, true), (.alert, 4_097, false), (.background, 4_097, false),
            (.voip, 5_120, true), (.voip, 5_121, false),
        ])
    func payloadLimits(_ pushType: APNsPushType, _ bytes: Int, _ fits: Bool) throws {
        let notification = Self.notification(pushType: pushType, bytes: bytes)
        #expect(notification.payload.count == bytes)
        if fits {
            try notification.validate()
        } else {
            #expect { try notification.validate() } throws: {
                ($0 as? APNsClientError)?.code == .payloadTooLarge
                    && ($0 as? APNsClientError)?.message.contains("\(bytes) bytes") == true
            }
        }
    }

    @Test("bad tokens, topics, collapse identifiers and payloads are refused with their code")
    func localChecks() {
        let good = Self.notification(bytes: 100)
        let cases: [(APNsClientError.Code, (inout APNsNotification) -> Void)] = [
            (.invalidDeviceToken, { $0.deviceToken = "xyz" }),
            (.invalidDeviceToken, { $0.deviceToken = "abc" }),
            (.invalidTopic, { $0.topic = "" }),
            (.invalidTopic, { $0.topic = "com.example app" }),
            (.invalidCollapseID, { $0.collapseID = String(repeating: "c", count: 65) }),
            (.invalidPayload, { $0.payload = Data("[1,2]".utf8) }),
            (.invalidPayload, { $0.payload = Data("{".utf8) }),
        ]
        for (code, change) in cases {
            var notification = good
            change(&notification)
            #expect { try notification.validate() } throws: { ($0 as? APNsClientError)?.code == code }
        }
    }

    @Test("retry delays double from the initial one up to the cap, less at most the jitter's share")
    func retryDelays() {
        var policy = APNsRetryPolicy()
        policy.initialDelay = 1
        policy.maximumDelay = 10
        policy.jitter = 0
        #expect((1...6).map { policy.delay(beforeRetry: $0, random: 0.7) } == [1, 2, 4, 8, 10, 10])
        policy.jitter = 0.5
        #expect(policy.delay(beforeRetry: 3, random: 0) == 4)
        #expect(policy.delay(beforeRetry: 3, random: 0.999_999) > 2)
        #expect(policy.delay(beforeRetry: 3, random: 0.5) == 3)
        // A server's retry-after lengthens the wait, never past the cap.
        #expect(policy.delay(beforeRetry: 1, retryAfter: 5, random: 0) == 5)
        #expect(policy.delay(beforeRetry: 1, retryAfter: 60, random: 0) == 10)
    }

    @Test("configurations out of range are refused")
    func badConfiguration() async throws {
        var configuration = APNsClientConfiguration(server: .sandbox)
        configuration.retryPolicy.maximumAttempts = 0
        let folder = try temporaryFolder("apns-config")
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try APNsSigningKey(p8File: try await makeAuthKey(keyID: testKeyID, in: folder), teamID: testTeamID)
        #expect { try APNsClient(configuration: configuration, key: key) } throws: {
            ($0 as? APNsClientError)?.code == .invalidConfiguration
        }
        configuration = APNsClientConfiguration(server: .production)
        configuration.tokenRefreshInterval = 10 * 60
        #expect { try APNsClient(configuration: configuration, key: key) } throws: {
            ($0 as? APNsClientError)?.code == .invalidConfiguration
        }
        #expect(APNsServer.production.description == "api.push.apple.com:443")
        #expect(APNsServer.sandbox.description == "api.sandbox.push.apple.com:443")
    }
}
