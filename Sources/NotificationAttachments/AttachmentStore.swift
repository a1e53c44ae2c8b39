import Foundation

/// The attachment data store: the folder where attachment files live once a request holding them was added.
///
/// Layout: `<root>/<bundle identifier>/<UUID>/<file name>`, folders of mode 0700. The default root is
/// `OPENUN_ATTACHMENTS`, else `$XDG_DATA_HOME/openusernotifications/attachments`, else
/// `~/.local/share/openusernotifications/attachments`.
///
/// ```swift
/// let store = AttachmentStore(rootPath: AttachmentStore.defaultRootPath())
/// let stored = try store.move(from: "/tmp/photo.png", appID: "com.example.app", bundleDirectory: nil)
/// stored.path   // ~/.local/share/openusernotifications/attachments/com.example.app/<UUID>/photo.png
/// ```
///
/// Moving happens in the app's own process (the API layer calls it before the request reaches the engine or
/// the daemon), with the app's user and rights; the daemon never reads or copies an attachment.
public struct AttachmentStore: Sendable, Hashable {
    /// The folder holding one folder per app.
    public let rootPath: String

    /// A store rooted at `rootPath` (an absolute path; it is created when the first file is moved in).
    public init(rootPath: String) {
        self.rootPath = rootPath.count > 1 && rootPath.hasSuffix("/") ? String(rootPath.dropLast()) : rootPath
    }

    /// `OPENUN_ATTACHMENTS`, else `$XDG_DATA_HOME/openusernotifications/attachments`, else
    /// `$HOME/.local/share/openusernotifications/attachments`.
    public static func defaultRootPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["OPENUN_ATTACHMENTS"], path.hasPrefix("/") { return path }
        let base: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else {
            base = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        }
        return base + "/openusernotifications/attachments"
    }

    /// The app's folder: the bundle identifier with `/` and leading dots made harmless.
    public func folder(forApp appID: String) -> String {
        var name = appID.replacingOccurrences(of: "/", with: "_")
        while name.hasPrefix(".") { name = "_" + name.dropFirst() }
        return rootPath + "/" + (name.isEmpty ? "_" : name)
    }

    /// Whether `path` lies inside the app's folder (by its standardized form).
    public func contains(_ path: String, appID: String) -> Bool {
        let standardized = URL(fileURLWithPath: path).standardizedFileURL.path
        return standardized.hasPrefix(folder(forApp: appID) + "/")
    }

    /// Validates a file by Apple's rules and puts it into the app's folder of the store.
    ///
    /// The file is opened once (see the safety rules in `docs/attachments.md`) and checked through that
    /// descriptor. It is then moved: renamed into a new `<UUID>` folder, or copied from the descriptor and deleted
    /// when the store is on another file system. It is copied instead, and the original left, when it lies in the
    /// app's bundle directory or the path given is a symbolic link. A file already in the app's folder stays
    /// where it is.
    ///
    /// - Parameters:
    ///   - path: The attachment's file.
    ///   - appID: The app's bundle identifier.
    ///   - bundleDirectory: The app's bundle directory; files inside it are copied.
    ///   - typeHint: The attachment's type hint, if any.
    /// - Returns: Where the file is now.
    /// - Throws: ``AttachmentError``: the validation's codes, `notInDataStore` for a file of the store that is
    ///   gone, `moveIntoDataStoreFailed` when the store cannot take the file.
    public func move(
        from path: String, appID: String, bundleDirectory: String?, typeHint: String? = nil
    ) throws -> StoredAttachment {
        let name = path.split(separator: "/").last.map(String.init) ?? "attachment"
        if contains(path, appID: appID) {
            guard FileSystem.linkStatus(path) != nil else {
                throw AttachmentError(.notInDataStore, "attachment \(name) is no longer in the attachment data store")
            }
            let validated = try AttachmentValidator.validate(path: path, typeHint: typeHint)
            return StoredAttachment(path: path, originalPath: path, method: .alreadyStored, validated: validated)
        }
        let file = try OpenedAttachmentFile(path: path)
        let validated = try AttachmentValidator.validate(file, typeHint: typeHint, checkStructure: true)
        let folder = try makeFolder(appID: appID, name: name)
        let destination = folder + "/" + name
        let copies = file.isSymbolicLink || isInside(file.resolvedPath, bundleDirectory: bundleDirectory)
        do {
            if copies {
                try copy(file, to: destination)
                return StoredAttachment(path: destination, originalPath: path, method: .copied, validated: validated)
            }
            try moveFile(file, to: destination)
            return StoredAttachment(path: destination, originalPath: path, method: .moved, validated: validated)
        } catch {
            FileSystem.removeEmptyDirectory(folder)
            throw error
        }
    }

    // MARK: - Steps

    private func failure(_ name: String, _ why: String) -> AttachmentError {
        AttachmentError(.moveIntoDataStoreFailed, "could not move attachment \(name) into the data store \(rootPath): \(why)")
    }

    /// Creates the root, the app's folder and a new `<UUID>` folder, all mode 0700.
    private func makeFolder(appID: String, name: String) throws -> String {
        do {
            try FileManager.default.createDirectory(
                atPath: rootPath, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw failure(name, "\(error.localizedDescription)")
        }
        let appFolder = folder(forApp: appID)
        guard FileSystem.makeDirectory(appFolder) else { throw failure(name, FileSystem.lastError) }
        let folder = appFolder + "/" + UUID().uuidString
        guard FileSystem.makeDirectory(folder) else { throw failure(name, FileSystem.lastError) }
        return folder
    }

    /// Whether `resolvedPath` lies in the (resolved) bundle directory.
    private func isInside(_ resolvedPath: String, bundleDirectory: String?) -> Bool {
        guard let bundleDirectory, let bundle = FileSystem.realPath(bundleDirectory) else { return false }
        return resolvedPath.hasPrefix(bundle == "/" ? "/" : bundle + "/")
    }

    /// Copies from the open descriptor into a new file (never through a link at the destination).
    private func copy(_ file: OpenedAttachmentFile, to destination: String) throws {
        let name = file.requestedPath.split(separator: "/").last.map(String.init) ?? "attachment"
        guard let output = FileSystem.createExclusively(destination) else { throw failure(name, FileSystem.lastError) }
        let copied = FileSystem.copy(from: file.descriptor, to: output)
        let reason = FileSystem.lastError
        FileSystem.close(output)
        guard copied else {
            FileSystem.unlinkEntry(destination)
            throw failure(name, reason)
        }
    }

    /// Renames the file into the store, checking that what was renamed is the file opened; across file systems,
    /// copies from the descriptor and deletes the original (only while it is still the file opened).
    private func moveFile(_ file: OpenedAttachmentFile, to destination: String) throws {
        let name = file.requestedPath.split(separator: "/").last.map(String.init) ?? "attachment"
        if let error = FileSystem.rename(file.resolvedPath, destination) {
            guard FileSystem.isCrossDevice(error) else { throw failure(name, FileSystem.describe(error)) }
            try copy(file, to: destination)
            guard let original = FileSystem.linkStatus(file.resolvedPath), FileSystem.sameFile(original, file.status),
                FileSystem.unlinkEntry(file.resolvedPath)
            else {
                let reason = FileSystem.lastError
                FileSystem.unlinkEntry(destination)
                throw failure(name, "the original could not be removed after copying (\(reason))")
            }
            return
        }
        guard let moved = FileSystem.linkStatus(destination), FileSystem.sameFile(moved, file.status) else {
            // Another file was swapped in after the checks: put it back and refuse.
            _ = FileSystem.rename(destination, file.resolvedPath)
            throw failure(name, "the file changed while it was being moved")
        }
    }
}
