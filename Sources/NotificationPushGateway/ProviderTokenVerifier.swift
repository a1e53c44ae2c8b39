import Foundation
import JWTKit
import NotificationModel

/// Checks APNs provider tokens: `authorization: bearer <JWT>` signed with ES256 by one of the configured keys.
///
/// The rules are APNs's: the JWT header names the key (`kid`) and the algorithm (`ES256`); the claims hold the
/// team (`iss`) and the time the token was made (`iat`). A token older than an hour is
/// `ExpiredProviderToken`; a missing header is `MissingProviderToken`; anything else wrong (unknown key, bad
/// signature, other team, malformed) is `InvalidProviderToken`, all with status 403.
///
/// Keys are the `.p8` files Apple's developer site hands out, named `AuthKey_<KEYID>.p8`:
///
/// ```swift
/// let verifier = try ProviderTokenVerifier(authKeys: "~/apns/AuthKey_ABC123DEFG.p8", teamID: "DEF123GHIJ")
/// let reason = await verifier.check(authorization: "bearer eyJ…")   // nil when the token is good
/// ```
///
/// > Note: APNs knows which team owns a key; here a key file carries no team, so ``teamID`` (when set) is the
/// > team every token must name. Without it any `iss` is accepted.
public struct ProviderTokenVerifier: Sendable {
    /// The key identifiers tokens may name.
    public let keyIDs: Set<String>
    /// The team every token's `iss` must be; `nil` accepts any non-empty team.
    public let teamID: String?
    /// How long a token is good after its `iat`: one hour, as on APNs.
    public var lifetime: TimeInterval = 3_600
    /// How far in the future `iat` may be (clock skew).
    public var allowedSkew: TimeInterval = 300
    /// The shortest interval between two different tokens on one connection; a quicker change answers 429
    /// `TooManyProviderTokenUpdates` (APNs asks for at most one update every 20 minutes). `nil`: no limit.
    public var minimumRefreshInterval: TimeInterval? = 20 * 60
    /// The current time (injected for tests).
    public var now: @Sendable () -> Date = { Date() }
    private let keys: JWTKeyCollection

    /// Creates a verifier from PEM keys by key identifier.
    ///
    /// - Parameters:
    ///   - pemKeys: Key identifier → PEM text: a PKCS#8 private key (a `.p8` file) or a public key.
    ///   - teamID: The team tokens must name, if any.
    /// - Throws: ``APNsEndpointError`` when a key is not a P-256 key in PEM.
    public init(pemKeys: [String: String], teamID: String?) async throws {
        let keys = JWTKeyCollection()
        for (keyID, pem) in pemKeys {
            if let privateKey = try? ES256PrivateKey(pem: pem) {
                await keys.add(ecdsa: privateKey, kid: JWKIdentifier(string: keyID))
            } else if let publicKey = try? ES256PublicKey(pem: pem) {
                await keys.add(ecdsa: publicKey, kid: JWKIdentifier(string: keyID))
            } else {
                throw APNsEndpointError.authKey("the key \(keyID) is not a P-256 key in PEM")
            }
        }
        self.keys = keys
        self.keyIDs = Set(pemKeys.keys)
        self.teamID = teamID
    }

    /// Creates a verifier from `AuthKey_<KEYID>.p8` files: one file, or every such file in a folder.
    ///
    /// - Throws: ``APNsEndpointError`` when the path holds no key or a key cannot be read.
    public init(authKeys path: String, teamID: String?) async throws {
        let path = NSString(string: path).expandingTildeInPath
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw APNsEndpointError.authKey("\(path) does not exist")
        }
        let files =
            isFolder.boolValue
            ? try FileManager.default.contentsOfDirectory(atPath: path).sorted().map { path + "/" + $0 } : [path]
        var pemKeys: [String: String] = [:]
        for file in files {
            let name = URL(fileURLWithPath: file).lastPathComponent
            guard name.hasPrefix("AuthKey_"), name.hasSuffix(".p8") else { continue }
            let keyID = String(name.dropFirst("AuthKey_".count).dropLast(".p8".count))
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw APNsEndpointError.authKey("cannot read \(file)")
            }
            pemKeys[keyID] = text
        }
        guard !pemKeys.isEmpty else { throw APNsEndpointError.authKey("no AuthKey_<KEYID>.p8 file at \(path)") }
        try await self.init(pemKeys: pemKeys, teamID: teamID)
    }

    /// Checks an `authorization` header value.
    ///
    /// - Parameter authorization: The header's value, or `nil` when the request had none.
    /// - Returns: `nil` for a good token, otherwise the reason to answer with.
    public func check(authorization: String?) async -> APNsReason? {
        if case .failure(let reason) = await verify(authorization: authorization) { return reason }
        return nil
    }

    /// Checks an `authorization` header value and tells the team (`iss`) a good token names.
    ///
    /// - Parameter authorization: The header's value, or `nil` when the request had none.
    /// - Returns: The token's team, or the reason to answer with.
    func verify(authorization: String?) async -> Result<String, APNsReason> {
        do { return .success(try await verifiedTeam(authorization: authorization)) } catch { return .failure(error) }
    }

    private func verifiedTeam(authorization: String?) async throws(APNsReason) -> String {
        guard let authorization, !authorization.isEmpty else {
            throw APNsReason.missingProviderToken.with(detail: "no authorization header")
        }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APNsReason.invalidProviderToken.with(detail: "authorization is not `bearer <token>`")
        }
        let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
        guard let header = Self.header(of: token) else {
            throw APNsReason.invalidProviderToken.with(detail: "the token is not a JWT")
        }
        guard header.alg == "ES256" else {
            throw APNsReason.invalidProviderToken.with(detail: "the token is not ES256")
        }
        guard let kid = header.kid, keyIDs.contains(kid) else {
            throw APNsReason.invalidProviderToken.with(detail: "the token's kid names no configured key")
        }
        let claims: ProviderClaims
        do {
            claims = try await keys.verify(token, as: ProviderClaims.self)
        } catch {
            throw APNsReason.invalidProviderToken.with(detail: "the token does not verify: \(error)")
        }
        guard !claims.iss.value.isEmpty, teamID.map({ $0 == claims.iss.value }) ?? true else {
            throw APNsReason.invalidProviderToken.with(detail: "the token's iss is not the configured team")
        }
        let age = now().timeIntervalSince(claims.iat.value)
        guard age >= -allowedSkew else {
            throw APNsReason.invalidProviderToken.with(detail: "the token's iat is in the future")
        }
        guard age <= lifetime else {
            throw APNsReason.expiredProviderToken.with(detail: "the token is older than an hour")
        }
        return claims.iss.value
    }

    /// The JWT header fields we read, decoded without verifying.
    private static func header(of token: String) -> (alg: String?, kid: String?)? {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else { return nil }
        var base64 = segments[0].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { return nil }
        return (object["alg"] as? String, object["kid"] as? String)
    }
}

/// The claims of a provider token: the team and the time it was made.
struct ProviderClaims: JWTPayload {
    var iss: IssuerClaim
    var iat: IssuedAtClaim

    /// The time checks need the verifier's clock, so they happen in ``ProviderTokenVerifier/check(authorization:)``.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
