import Foundation
import NotificationModel

extension NotificationStore {
    /// The app's content extension, if it declared one.
    public func contentExtension(appID: String) async throws -> ContentExtensionDeclaration? {
        guard let stored = try await metadata(ContentExtensionKeys.declaration(appID)), !stored.isEmpty else {
            return nil
        }
        return try JSONDecoder().decode(ContentExtensionDeclaration.self, from: Data(stored.utf8))
    }

    /// Declares (or with `nil` removes) the app's content extension.
    public func setContentExtension(_ declaration: ContentExtensionDeclaration?, appID: String) async throws {
        let value =
            try declaration.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) } ?? ""
        try await setMetadata(ContentExtensionKeys.declaration(appID), value)
    }
}

extension NotificationScheduler {
    /// Declares (or with `nil` removes) the app's content extension.
    /// - Throws: ``EngineError`` with `invalidArgument` for a command that does not start with an absolute path or a
    ///   declaration without categories, `storeFailure` when the store fails.
    public func setContentExtension(_ declaration: ContentExtensionDeclaration?, appID: String) async throws {
        if let declaration {
            guard !declaration.categories.isEmpty else {
                throw EngineError(.invalidArgument, "a content extension names at least one category")
            }
            guard declaration.command.map({ !$0.isEmpty && $0[0].hasPrefix("/") }) ?? true else {
                throw EngineError(
                    .invalidArgument, "a content extension command starts with an absolute executable path")
            }
        }
        try await storeCall { try await store.setContentExtension(declaration, appID: appID) }
    }
}

/// The metadata keys of content extension state.
enum ContentExtensionKeys {
    static func declaration(_ appID: String) -> String { "contentExtension.\(appID)" }
}
