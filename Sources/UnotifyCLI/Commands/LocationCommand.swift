import ArgumentParser

/// `unotify location`: report where the device is, so location triggers fire.
struct LocationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "location",
        abstract: "Report the device's location: location triggers fire on entering or leaving their region.",
        discussion: """
            In embedded mode the engine in this process evaluates the fix and delivers what fires; with unotifyd \
            running, the regions' states are updated in the daemon's store and the daemon delivers. The location \
            itself is never stored (docs/location.md).
            """,
        subcommands: [LocationSet.self, LocationReplay.self])
}
