import Foundation
import NotificationModel

/// Deleting attachment files from the data store once nothing names them.
///
/// The app's process moves attachment files into the data store when it adds a request (the engine never reads
/// or copies them). The engine deletes a stored file when the last thing naming it goes: the pending request
/// (removed, replaced, discarded by the cap, or a one-shot that fired without being listed), the delivered
/// notification (removed, answered, or replaced by a newer delivery with the same identifier) and the queued
/// response (handed to the app). A repeating request keeps its file across deliveries; a file named by a listed
/// notification stays while it is listed even when its request was removed.
///
/// Only files inside ``EngineConfiguration/attachmentStoreRoot`` (by their resolved folder) are ever deleted,
/// whatever a request names.
extension NotificationScheduler {
    /// Deletes the stored attachment files of `removed` that no pending request, delivered notification or queued
    /// response of the app still names. A store that cannot be read keeps every file.
    func discardAttachments(of removed: [RequestSpec], appID: String) async {
        guard let root = configuration.attachmentStoreRoot else { return }
        let candidates = Set(removed.flatMap(\.content.attachments).map(\.url).filter(\.isFileURL).map(Self.normalized))
        guard !candidates.isEmpty else { return }
        let referenced: Set<String>
        do {
            referenced = try await attachmentPaths(appID: appID)
        } catch {
            logger.error("could not read which attachments are in use; none deleted: \(error)", metadata: ["app": "\(appID)"])
            return
        }
        for path in candidates.subtracting(referenced) { deleteStoredAttachment(path, root: root, appID: appID) }
    }

    /// The delivered notifications of the app listed under `identifier`, which a delivery with that identifier
    /// replaces; empty, without reading the store, when the app has no attachments in the data store.
    func listedRequests(replacedBy identifier: String, appID: String) async -> [RequestSpec] {
        guard hasStoredAttachments(appID: appID) else { return [] }
        let listed = (try? await store.deliveredNotifications(appID: appID)) ?? []
        return listed.filter { $0.identifier == identifier }.map(\.request)
    }

    /// The pending request of the app with `identifier`, which an `add` with that identifier replaces; empty,
    /// without reading the store, when the app has no attachments in the data store.
    nonisolated func pendingRequests(replacedBy identifier: String, appID: String) async -> [RequestSpec] {
        guard hasStoredAttachments(appID: appID) else { return [] }
        let pending = (try? await store.pendingRequests(appID: appID)) ?? []
        return pending.filter { $0.identifier == identifier }.map(\.spec)
    }

    /// The app's pending requests with one of `identifiers`, which a batch add replaces. The batch add asks it only
    /// for apps with attachments in the data store (it has checked ``hasStoredAttachments(appID:)`` for each of its
    /// apps), so this reads the store without checking again.
    func pendingRequests(replacedBy identifiers: Set<String>, appID: String) async -> [RequestSpec] {
        let pending = (try? await store.pendingRequests(appID: appID)) ?? []
        return pending.filter { identifiers.contains($0.identifier) }.map(\.spec)
    }

    /// Whether the app's folder in the data store has anything in it.
    nonisolated func hasStoredAttachments(appID: String) -> Bool {
        guard let root = configuration.attachmentStoreRoot else { return false }
        // As the app side names the folder. Every add asks this (4.5% of a daemon add's CPU in `perf`), so the common
        // name is not bridged to `NSString` for a replacement it does not need, and the path is concatenated:
        // `URL(fileURLWithPath:)` asks the file system whether the root is a folder.
        var name = appID.utf8.contains(UInt8(ascii: "/")) ? appID.replacingOccurrences(of: "/", with: "_") : appID
        while name.hasPrefix(".") { name = "_" + name.dropFirst() }
        let separator = root.hasSuffix("/") ? "" : "/"
        return Folder.hasEntries(atPath: root + separator + (name.isEmpty ? "_" : name))
    }

    /// Every attachment path the app's pending requests, delivered notifications and queued responses name.
    private func attachmentPaths(appID: String) async throws -> Set<String> {
        var specs = try await store.pendingRequests(appID: appID).map(\.spec)
        specs += try await store.deliveredNotifications(appID: appID).map(\.request)
        specs += try await store.queuedResponses(appID: appID).map(\.response.notification.request)
        return Set(specs.flatMap(\.content.attachments).map(\.url).filter(\.isFileURL).map(Self.normalized))
    }

    private static func normalized(_ url: URL) -> String { url.standardizedFileURL.path }

    /// Deletes one stored file (a link itself, never its target) and then its folder when empty, only when the
    /// file's folder resolves to a folder below the store root.
    private func deleteStoredAttachment(_ path: String, root: String, appID: String) {
        let file = URL(fileURLWithPath: path)
        let folder = file.deletingLastPathComponent()
        let resolvedRoot = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
        let resolvedFolder = folder.resolvingSymlinksInPath().path
        guard resolvedFolder.hasPrefix(resolvedRoot + "/"),
            resolvedFolder.dropFirst(resolvedRoot.count + 1).split(separator: "/").count >= 2
        else { return }  // not <root>/<app>/<folder>: not ours to delete
        let target = URL(fileURLWithPath: resolvedFolder).appendingPathComponent(file.lastPathComponent).path
        let type = (try? FileManager.default.attributesOfItem(atPath: target))?[.type] as? FileAttributeType
        guard type == .typeRegular || type == .typeSymbolicLink else { return }  // never a folder
        do {
            try FileManager.default.removeItem(atPath: target)
            logger.debug("deleted a stored attachment", metadata: ["app": "\(appID)", "file": "\(target)"])
        } catch {
            logger.warning("could not delete a stored attachment: \(error)", metadata: ["app": "\(appID)", "file": "\(target)"])
            return
        }
        if (try? FileManager.default.contentsOfDirectory(atPath: resolvedFolder))?.isEmpty == true {
            try? FileManager.default.removeItem(atPath: resolvedFolder)
        }
    }
}
