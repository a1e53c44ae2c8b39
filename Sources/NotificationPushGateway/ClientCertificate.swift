import Foundation
import NotificationModel
import SwiftASN1
// The endpoint checks validity at its own clock's time (a test's manual clock), hence the fixed-time policy.
@_spi(FixedExpiryValidationTime) import X509

/// A provider's TLS client certificate as APNs reads it: who issued it (it must chain to the endpoint's client
/// certificate authority), which environments it is good for, its app (the subject's `UID`, the bundle identifier),
/// the topics it may push to, and its team (the subject's `OU`).
///
/// Apple marks its push certificates with extensions of its own: `1.2.840.113635.100.6.3.1` for the development
/// environment, `1.2.840.113635.100.6.3.2` for production (a universal certificate has both), and
/// `1.2.840.113635.100.6.3.6` for a universal certificate's topics: a DER `SEQUENCE` of UTF8 topics, each followed by
/// a `SEQUENCE` naming its kind (`app`, `voip`, `complication`, …). A certificate without that list has one topic,
/// its `UID`.
struct ClientCertificate: Sendable, Hashable {
    /// Apple's extension for the development (sandbox) environment.
    static let developmentOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 1]
    /// Apple's extension for the production environment.
    static let productionOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 2]
    /// Apple's extension listing a universal certificate's topics.
    static let topicsOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 6]
    /// The subject attribute `UID` (userId), which Apple sets to the app's bundle identifier.
    static let userIDOID: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]

    /// Why the certificate cannot authenticate a provider (answered 403 `BadCertificate`); `nil` when it can.
    var problem: String?
    /// The environments the certificate is good for.
    var environments: Set<PushEnvironment> = []
    /// The app: the subject's `UID`.
    var bundleID: String?
    /// The topics the certificate may push to: its topic list, else its `UID`.
    var topics: [String] = []
    /// Whether the certificate lists its topics (then a request must name one: `MissingTopic`).
    var listsTopics = false
    /// The team: the subject's `OU`.
    var team: String?

    /// A certificate that cannot authenticate.
    static func bad(_ problem: String) -> ClientCertificate {
        ClientCertificate(problem: problem)
    }

    /// Reads a presented chain (leaf first, DER) and checks it against the trusted roots at `now`.
    static func read(chain: [[UInt8]], roots: [Certificate], now: Date) async -> ClientCertificate {
        guard let leafDER = chain.first else { return .bad("no certificate was presented") }
        let leaf: Certificate
        let intermediates: [Certificate]
        do {
            leaf = try Certificate(derEncoded: leafDER)
            intermediates = try chain.dropFirst().map { try Certificate(derEncoded: $0) }
        } catch {
            return .bad("the certificate cannot be read: \(error)")
        }
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
            RFC5280Policy(fixedExpiryValidationTime: now)
        }
        switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(intermediates)) {
        case .validCertificate: break
        case .couldNotValidate(let failures):
            let reasons = failures.map { "\($0.policyFailureReason)" }
            return .bad(
                "the certificate does not chain to the client certificate authority at the endpoint's time"
                    + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: "; ")))"))
        }
        return read(leaf)
    }

    /// Reads what an already trusted certificate says.
    static func read(_ certificate: Certificate) -> ClientCertificate {
        var result = ClientCertificate()
        for relative in certificate.subject {
            for attribute in relative {
                if attribute.type == userIDOID { result.bundleID = String(attribute.value) }
                if attribute.type == .RDNAttributeType.organizationalUnitName { result.team = String(attribute.value) }
            }
        }
        for item in certificate.extensions {
            if item.oid == developmentOID { result.environments.insert(.development) }
            if item.oid == productionOID { result.environments.insert(.production) }
            if item.oid == topicsOID {
                guard let topics = try? Self.topics(fromExtension: item.value), !topics.isEmpty else {
                    return .bad("its topics extension (1.2.840.113635.100.6.3.6) is not a sequence of UTF8 topics")
                }
                result.topics = topics
                result.listsTopics = true
            }
        }
        guard let bundleID = result.bundleID, !bundleID.isEmpty else {
            return .bad("its subject has no UID (the app's bundle identifier)")
        }
        guard !result.environments.isEmpty else {
            return .bad(
                "it names no APNs environment (extension 1.2.840.113635.100.6.3.1 for development, "
                    + "1.2.840.113635.100.6.3.2 for production)")
        }
        if !result.listsTopics { result.topics = [bundleID] }
        return result
    }

    /// The topics of a `1.2.840.113635.100.6.3.6` extension: the UTF8 strings of its sequence (the sequences that
    /// name each topic's kind are skipped).
    static func topics(fromExtension value: ArraySlice<UInt8>) throws -> [String] {
        let root = try DER.parse(value)
        return try DER.sequence(root, identifier: .sequence) { nodes in
            var topics: [String] = []
            while let node = nodes.next() {
                if node.identifier == .utf8String { topics.append(String(try ASN1UTF8String(derEncoded: node))) }
            }
            return topics
        }
    }
}
