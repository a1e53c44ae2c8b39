import Foundation
import Logging
import NotificationPlatform

/// Plays notification sounds through a desktop sound program found on `PATH`.
///
/// The program is chosen once, by ``available(environment:logger:)``, in this order:
/// 1. `canberra-gtk-play`, only when `DISPLAY` or `WAYLAND_DISPLAY` is set (it needs a display to start);
/// 2. `paplay` (PulseAudio or PipeWire's pulse server);
/// 3. `aplay` (ALSA; WAV files only).
///
/// Each sound runs the program as a child started with `posix_spawn`, with an empty signal mask and default signal
/// actions (the daemon blocks `SIGTERM`; its players must not inherit that). The child gets only the variables in
/// ``passedVariables`` from the given environment. Waiting happens on a dedicated thread, never on Swift's
/// cooperative pool; after ``timeout`` the child is killed with `SIGKILL`, and so it is when the task is cancelled.
///
/// ```swift
/// if let player = SoundPlayer.available(environment: ProcessInfo.processInfo.environment, logger: logger) {
///     try await player.play(file: url)        // logs "played /app/Sounds/ping.wav through paplay"
/// }
/// ```
public struct SoundPlayer: Sendable {
    /// The sound programs ``SoundPlayer`` knows, in the order they are preferred.
    public enum Program: String, Sendable, Hashable, CaseIterable {
        /// libcanberra's `canberra-gtk-play`: plays files and sound-theme events; needs a display.
        case canberraGtkPlay = "canberra-gtk-play"
        /// PulseAudio's `paplay`: plays anything libsndfile reads (WAV, AIFF, CAF, Ogg Vorbis, …).
        case paplay
        /// ALSA's `aplay`: plays WAV (not AIFF, CAF or Ogg).
        case aplay
    }

    /// The environment variables handed to the player, when set in the given environment.
    public static let passedVariables = [
        "PATH", "HOME", "USER", "LANG", "LC_ALL", "LC_MESSAGES", "PULSE_SERVER", "PULSE_COOKIE", "PULSE_SINK",
        "PULSE_RUNTIME_PATH", "XDG_RUNTIME_DIR", "XDG_DATA_HOME", "XDG_DATA_DIRS", "XDG_CONFIG_HOME", "DISPLAY",
        "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS",
    ]

    /// The program used.
    public let program: Program
    /// The program's path.
    public let executable: URL
    /// The environment the player runs with (already reduced to ``passedVariables``).
    public let environment: [String: String]
    /// How long one sound may take before the player is killed with `SIGKILL`; 35 seconds by default.
    public var timeout: Duration
    /// Where playback is logged (at `debug`; fallbacks at `info`).
    public var logger: Logger

    /// The program's name for the log, for example `paplay` (as in "played ping.wav through paplay").
    public var name: String { program.rawValue }

    /// Creates a player for a known program at a known path.
    ///
    /// - Parameters:
    ///   - program: Which program `executable` is.
    ///   - executable: Its path.
    ///   - environment: The caller's environment; only ``passedVariables`` reach the player.
    ///   - timeout: How long one sound may take.
    ///   - logger: Where playback is logged; discards by default.
    public init(
        program: Program, executable: URL, environment: [String: String], timeout: Duration = .seconds(35),
        logger: Logger = Logger(label: "NotificationSound", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.program = program
        self.executable = executable
        var passed = environment.filter { Self.passedVariables.contains($0.key) }
        if passed["PATH"] == nil { passed["PATH"] = Self.defaultPath }
        self.environment = passed
        self.timeout = timeout
        self.logger = logger
    }

    /// The first usable player on `PATH`, or `nil` when there is none.
    ///
    /// - Parameters:
    ///   - environment: The environment to search (`PATH`) and to pass on; `canberra-gtk-play` is only considered
    ///     when it sets `DISPLAY` or `WAYLAND_DISPLAY`.
    ///   - logger: Where the player logs.
    /// - Returns: A player for `canberra-gtk-play`, `paplay` or `aplay`, in that order of preference.
    public static func available(
        environment: [String: String],
        logger: Logger = Logger(label: "NotificationSound", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> SoundPlayer? {
        let hasDisplay = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        let path = (environment["PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultPath).split(separator: ":")
        for program in Program.allCases where program != .canberraGtkPlay || hasDisplay {
            for directory in path where directory.hasPrefix("/") {
                let candidate = "\(directory)/\(program.rawValue)"
                if Platform.isExecutableFile(candidate) {
                    return SoundPlayer(
                        program: program, executable: URL(filePath: candidate), environment: environment,
                        logger: logger)
                }
            }
        }
        return nil
    }

    /// Plays `file` and returns when the player has finished.
    ///
    /// - Parameter file: A sound file, normally one a ``SoundLocator`` resolved.
    /// - Throws: ``SoundPlayerError``: `unsupportedFormat` when the program is `aplay` and the file is not WAV,
    ///   `spawnFailed`, `playerFailed` (with the player's error output) or `timedOut`.
    public func play(file: URL) async throws {
        if program == .aplay, let info = try? SoundFileInfo(contentsOf: file), info.container != .wav {
            throw SoundPlayerError(
                .unsupportedFormat, message: "aplay plays only WAV files; \(file.path) is \(info.container)")
        }
        let arguments: [String] =
            switch program {
            case .canberraGtkPlay: ["-f", file.path, "-d", "notification sound"]
            case .paplay: [file.path]
            case .aplay: ["-q", file.path]
            }
        try await run(arguments, what: file.path)
        logger.debug("played \(file.path) through \(name)")
    }

    /// Plays the default notification sound, the freedesktop sound-theme event ``NotificationSound/defaultSoundEvent``.
    ///
    /// `canberra-gtk-play` plays the event from the current sound theme. `paplay` plays
    /// `sounds/freedesktop/stereo/message-new-instant.{oga,ogg,wav}` from `$XDG_DATA_HOME` or `$XDG_DATA_DIRS`
    /// (or `/usr/share`); `aplay` cannot play Ogg, so it only uses a `.wav` there.
    ///
    /// - Throws: ``SoundPlayerError``: `noDefaultSound` when no file this program can play was found (the message
    ///   says where it looked and what it found), or the errors of ``play(file:)``.
    public func playDefaultSound() async throws {
        let event = NotificationSound.defaultSoundEvent
        if program == .canberraGtkPlay {
            try await run(["-i", event, "-d", "notification"], what: "the sound event \(event)")
            logger.debug("played the default sound (\(event)) through \(name)")
            return
        }
        let candidates = defaultSoundCandidates()
        let existing = candidates.filter { Platform.isRegularFile($0.path) }
        let playable = program == .aplay ? existing.filter { $0.pathExtension == "wav" } : existing
        guard let file = playable.first else {
            let directories = Set(candidates.map { $0.deletingLastPathComponent().path }).sorted()
            let looked = "looked in \(directories.joined(separator: ", "))"
            if let ogg = existing.first {
                throw SoundPlayerError(
                    .noDefaultSound,
                    message: "aplay cannot play Ogg: found \(ogg.path) but no \(event).wav (\(looked)); "
                        + "install paplay (pulseaudio-utils) to play it")
            }
            throw SoundPlayerError(
                .noDefaultSound,
                message: "no \(event).oga/.ogg/.wav of the freedesktop sound theme (\(looked)); "
                    + "install sound-theme-freedesktop")
        }
        try await play(file: file)
        logger.debug("played the default sound \(file.path) through \(name)")
    }

    /// Where the freedesktop theme's default sound may be, best first.
    func defaultSoundCandidates() -> [URL] {
        var roots: [String] = []
        if let home = environment["XDG_DATA_HOME"], home.hasPrefix("/") {
            roots.append(home)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            roots.append(home + "/.local/share")
        }
        let dataDirectories = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        roots += dataDirectories.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        if !roots.contains("/usr/share") { roots.append("/usr/share") }
        var seen = Set<String>()
        return roots.filter { seen.insert($0).inserted }.flatMap { root in
            ["oga", "ogg", "wav"].map {
                URL(filePath: "\(root)/sounds/freedesktop/stereo/\(NotificationSound.defaultSoundEvent).\($0)")
            }
        }
    }

    private func run(_ arguments: [String], what: String) async throws {
        let child: SpawnedProcess
        do {
            child = try SpawnedProcess(executable: executable.path, arguments: arguments, environment: environment)
        } catch {
            throw SoundPlayerError(.spawnFailed, message: error.description)
        }
        let exit = await child.waitForExit(timeout: timeout)
        if exit.timedOut {
            throw SoundPlayerError(.timedOut, message: "\(name) playing \(what) took longer than \(timeout) and was killed")
        }
        guard exit.succeeded else {
            let detail = exit.errorOutput.trimmingCharacters(in: .whitespacesAndNewlines).suffix(500)
            throw SoundPlayerError(
                .playerFailed,
                message: "\(name) playing \(what) \(exit.summary)" + (detail.isEmpty ? "" : ": \(detail)"))
        }
    }

    private static let defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
}
