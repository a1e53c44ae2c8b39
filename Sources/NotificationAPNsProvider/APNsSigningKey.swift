import Foundation
import JWTKit

/// The key that signs provider tokens: the ES256 private key of a `.p8` file from Apple's developer site, its key
/// identifier and the team it belongs to.
///
/// ```swift
/// // AuthKey_ABC123DEFG.p8: the key identifier comes from the file's name.
/// let key = try APNsSigningKey(p8File: "/etc/unotify/AuthKey_ABC123DEFG.p8", teamID: "DEF123GHIJ")
/// ```
public struct APNsSigningKey: Sendable {
    /// The key identifier, the JWT header's `kid` (10 characters on Apple's site).
    public let keyID: String
    /// The team identifier, the JWT's `iss` (10 characters on Apple's site).
    public let teamID: String
    let privateKey: ES256PrivateKey

    /// Creates a key from PKCS#8 PEM text, the content of a `.p8` file.
    ///
    /// - Parameters:
    ///   - pem: The `-----BEGIN PRIVATE KEY-----` text.
    ///   - keyID: The key identifier.
    ///   - teamID: The team identifier.
    /// - Throws: ``APNsClientError/Code/invalidSigningKey`` when the text is not a P-256 private key or an identifier
    ///   is empty or has characters other than letters and digits.
    public init(pem: String, keyID: String, teamID: String) throws(APNsClientError) {
        for (name, value) in [("key identifier", keyID), ("team identifier", teamID)] {
            guard !value.isEmpty, value.count <= 64, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
            else {
                throw APNsClientError(
                    .invalidSigningKey, "the \(name) \"\(value.prefix(80))\" is not letters and digits")
            }
        }
        do {
            privateKey = try ES256PrivateKey(pem: pem)
        } catch {
            throw APNsClientError(.invalidSigningKey, "the key \(keyID) is not a P-256 private key in PEM: \(error)")
        }
        self.keyID = keyID
        self.teamID = teamID
    }

    /// Reads a `.p8` file.
    ///
    /// - Parameters:
    ///   - path: The file; `~` is expanded.
    ///   - teamID: The team identifier.
    ///   - keyID: The key identifier; when `nil`, taken from a file named `AuthKey_<KEYID>.p8`, as Apple names them.
    /// - Throws: ``APNsClientError/Code/invalidSigningKey`` when the file cannot be read, holds no P-256 private key,
    ///   or no key identifier is given and the name does not carry one.
    public init(p8File path: String, teamID: String, keyID: String? = nil) throws(APNsClientError) {
        let path = NSString(string: path).expandingTildeInPath
        let name = URL(fileURLWithPath: path).lastPathComponent
        let fromName =
            name.hasPrefix("AuthKey_") && name.hasSuffix(".p8")
            ? String(name.dropFirst("AuthKey_".count).dropLast(".p8".count)) : nil
        guard let keyID = keyID ?? fromName else {
            throw APNsClientError(
                .invalidSigningKey, "\(path) is not named AuthKey_<KEYID>.p8; pass the key identifier")
        }
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw APNsClientError(.invalidSigningKey, "cannot read \(path): \(error.localizedDescription)")
        }
        try self.init(pem: text, keyID: keyID, teamID: teamID)
    }
}
