import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

// The app binds its own device to an account, aliases and tags (docs/push-service.md, "The app's client"), with the
// device's APNs token as the credential, as for receipts. Unlike receipts these calls are not queued: the app waits
// for the answer, and gets the device's audience or the server's refusal.
extension PushServiceClient {
    /// Binds this device to an account, replacing the one it had (`PUT /v1/devices/{id}/account`).
    ///
    /// ```swift
    /// let audience = try await client.bindAccount("alice")   // audience.account == "alice"
    /// ```
    ///
    /// - Parameter account: 1 to 128 characters, no control characters.
    /// - Returns: The device's audience after the change.
    /// - Throws: ``PushServiceClientError``: the server's status and reason when it refused (`InvalidName`, 401 for a
    ///   token that is not the device's), ``PushServiceClientError/isUnreachable`` when it could not be reached.
    public nonisolated func bindAccount(_ account: String) async throws -> Audience {
        try await audienceCall(.PUT, "account", body: ["account": account])
    }

    /// Unbinds this device from its account (`DELETE /v1/devices/{id}/account`); not an error without one.
    ///
    /// ```swift
    /// let audience = try await client.unbindAccount()   // audience.account == nil
    /// ```
    ///
    /// - Returns: The device's audience after the change.
    /// - Throws: ``PushServiceClientError``, as ``bindAccount(_:)``.
    public nonisolated func unbindAccount() async throws -> Audience {
        try await audienceCall(.DELETE, "account")
    }

    /// Adds aliases to this device (`POST /v1/devices/{id}/aliases`): all or none (at most 128 in all per device).
    ///
    /// ```swift
    /// let audience = try await client.bindAliases(["alice", "alice@work"])
    /// ```
    ///
    /// - Parameter aliases: Names of 1 to 128 characters; one the device has already is kept once.
    /// - Returns: The device's audience after the change.
    /// - Throws: ``PushServiceClientError``, as ``bindAccount(_:)`` (`TooManyAliases` beyond the limit).
    public nonisolated func bindAliases(_ aliases: [String]) async throws -> Audience {
        try await audienceCall(.POST, "aliases", body: ["aliases": aliases])
    }

    /// Removes one alias from this device (`DELETE /v1/devices/{id}/aliases/{alias}`); not an error when the device
    /// does not have it.
    ///
    /// ```swift
    /// let audience = try await client.unbindAlias("alice@work")
    /// ```
    ///
    /// - Parameter alias: The alias (not empty).
    /// - Returns: The device's audience after the change.
    /// - Throws: ``PushServiceClientError``, as ``bindAccount(_:)``; for an empty name without asking the server.
    public nonisolated func unbindAlias(_ alias: String) async throws -> Audience {
        try await audienceCall(.DELETE, "aliases/" + Self.pathComponent(try Self.nonEmpty(alias, "alias")))
    }

    /// Adds tags to this device (`POST /v1/devices/{id}/tags`): all or none (at most 128 in all per device).
    ///
    /// ```swift
    /// let audience = try await client.bindTags(["news", "sports"])
    /// ```
    ///
    /// - Parameter tags: Names of 1 to 128 characters; one the device has already is kept once.
    /// - Returns: The device's audience after the change.
    /// - Throws: ``PushServiceClientError``, as ``bindAccount(_:)`` (`TooManyTags` beyond the limit).
    public nonisolated func bindTags(_ tags: [String]) async throws -> Audience {
        try await audienceCall(.POST, "tags", body: ["tags": tags])
    }

    /// Removes one tag from this device (`DELETE /v1/devices/{id}/tags/{tag}`); not an error when the device does
    /// not have it.
    ///
    /// ```swift
    /// let audience = try await client.unbindTag("sports")
    /// ```
    ///
    /// - Parameter tag: The tag (not empty).
    /// - Returns: The device's audience after the change.
    /// - Throws: ``PushServiceClientError``, as ``bindAccount(_:)``; for an empty name without asking the server.
    public nonisolated func unbindTag(_ tag: String) async throws -> Audience {
        try await audienceCall(.DELETE, "tags/" + Self.pathComponent(try Self.nonEmpty(tag, "tag")))
    }

    /// This device's account, aliases and tags as the server holds them (`GET /v1/devices/{id}/audience`).
    ///
    /// ```swift
    /// let tags = try await client.audience().tags
    /// ```
    ///
    /// - Returns: The device's audience.
    /// - Throws: ``PushServiceClientError``, as ``bindAccount(_:)``.
    public nonisolated func audience() async throws -> Audience {
        try await audienceCall(.GET, "audience")
    }

    /// Sends one audience call with the device's token and reads the audience from a 200 answer.
    nonisolated func audienceCall(_ method: HTTPMethod, _ suffix: String, body: [String: any Sendable]? = nil)
        async throws -> Audience
    {
        let url = devicePath(suffix)
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(deviceToken)")
        let status: Int
        let data: Data
        do {
            if let body {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
            }
            let response = try await httpClient.execute(request, timeout: .seconds(30))
            status = Int(response.status.code)
            data = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        } catch {
            throw PushServiceClientError(
                "cannot reach the push service at \(url): \(error)", status: nil, reason: nil, isUnreachable: true)
        }
        guard status == 200 else {
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            let reason = object?["reason"] as? String
            let detail = object?["detail"] as? String ?? String(decoding: data.prefix(200), as: UTF8.self)
            throw PushServiceClientError(
                "\(method) \(url): HTTP \(status) \(reason ?? ""): \(detail)", status: status, reason: reason)
        }
        do { return try JSONDecoder().decode(Audience.self, from: data) } catch {
            let text = String(decoding: data.prefix(200), as: UTF8.self)
            throw PushServiceClientError(
                "\(method) \(url): the answer is not a device's audience: \(text)", status: status, reason: nil)
        }
    }

    /// `name`, unless it is empty.
    static func nonEmpty(_ name: String, _ what: String) throws -> String {
        guard !name.isEmpty else { throw PushServiceClientError("an empty \(what) cannot be unbound: name one") }
        return name
    }
}
