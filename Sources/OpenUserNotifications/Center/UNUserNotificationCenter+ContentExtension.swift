import NotificationModel

extension UNUserNotificationCenter {
    /// Declares the app's notification content extension: the executable that draws its notifications of
    /// `categories` in the web center of `unotifyd`, and hears the actions pressed below that view first. An addition
    /// of this library: on iOS, an extension bundle's `Info.plist` says this (`UNNotificationExtensionCategory`).
    ///
    /// The executable's `main` calls ``ContentExtensionProcess/run(_:)`` with the app's
    /// ``UNNotificationContentExtension``. Its view runs in a sandboxed frame without network unless `allowsNetwork`
    /// (then `https:` sources and connections are allowed).
    ///
    /// ```swift
    /// try await center.setContentExtension(command: ["/opt/chat/bin/InviteView"], categories: ["invite"])
    /// ```
    /// - Parameters:
    ///   - command: The executable's absolute path and its arguments.
    ///   - categories: The categories (`categoryIdentifier`) whose notifications it draws; at least one.
    ///   - allowsNetwork: Whether its view may load from and connect to `https:` addresses.
    /// - Throws: ``NotificationRequestError`` for a relative path or no category.
    public func setContentExtension(command: [String], categories: [String], allowsNetwork: Bool = false)
        async throws
    {
        let declaration = ContentExtensionDeclaration(
            categories: categories, command: command, allowsNetwork: allowsNetwork)
        try await call { try await $0.setContentExtension(declaration, appID: $1) }
    }

    /// Removes the app's content extension: its notifications are shown plain again. An addition of this library.
    public func removeContentExtension() async throws {
        try await call { try await $0.setContentExtension(nil, appID: $1) }
    }
}
