import Foundation
import NotificationLocation
import Synchronization
import Testing

@Suite("tracks and sources")
struct LocationTrackTests {
    @Test("CSV: header, comments, ISO and numeric timestamps, optional accuracy")
    func csv() throws {
        let track = try LocationTrack(
            csv: """
                timestamp,latitude,longitude,accuracy
                # a comment

                2026-01-05T09:00:00Z,48.8584,2.2945,12
                2026-01-05T09:00:10.5Z, 48.8590 , 2.2950
                1767603630,-16.5,-179.99,
                """)
        #expect(track.fixes.count == 3)
        #expect(track.fixes[0].horizontalAccuracy == 12)
        #expect(track.fixes[1].timestamp.timeIntervalSince(track.fixes[0].timestamp) == 10.5)
        #expect(track.fixes[2].timestamp == Date(timeIntervalSince1970: 1_767_603_630))
        #expect(track.fixes[2].longitude == -179.99)
    }

    @Test("CSV errors name the line")
    func csvErrors() {
        #expect(throws: LocationTrackError.self) { try LocationTrack(csv: "0,1,2\n10,north,2\n") }
        do {
            _ = try LocationTrack(csv: "0,1,2\n10,1\n")
        } catch let error as LocationTrackError {
            #expect(error.message.hasPrefix("line 2"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("GPX: track points with times, self-closing points, single quotes")
    func gpx() throws {
        let track = try LocationTrack(
            gpx: """
                <?xml version="1.0" encoding="UTF-8"?>
                <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
                  <trk><name>walk</name><trkseg>
                    <trkpt lat="48.8584" lon="2.2945"><ele>35</ele><time>2026-01-05T09:00:00Z</time></trkpt>
                    <trkpt lon='2.2950' lat='48.8590'><time>2026-01-05T09:00:30.250Z</time></trkpt>
                    <trkpt lat="48.8600" lon="2.2960"/>
                  </trkseg></trk>
                </gpx>
                """)
        #expect(track.fixes.map(\.latitude) == [48.8584, 48.8590, 48.8600])
        #expect(track.fixes[1].longitude == 2.2950)
        #expect(track.fixes[1].timestamp.timeIntervalSince(track.fixes[0].timestamp) == 30.25)
        #expect(track.fixes[2].timestamp.timeIntervalSince(track.fixes[1].timestamp) == 1)
        #expect(throws: LocationTrackError.self) { try LocationTrack(gpx: "<gpx><trkpt lat=\"1\"></trkpt></gpx>") }
    }

    @Test("the example tracks parse")
    func examples() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/LocationReplay")
        let gpx = try LocationTrack(contentsOf: folder.appendingPathComponent("walk.gpx"))
        let csv = try LocationTrack(contentsOf: folder.appendingPathComponent("walk.csv"))
        #expect(gpx.fixes.count > 5)
        #expect(gpx.fixes.map(\.latitude) == csv.fixes.map(\.latitude))
        #expect(gpx.fixes.map(\.timestamp) == csv.fixes.map(\.timestamp))
    }

    @Test("a replay waits the recorded gaps divided by the speed, through the injected sleep")
    func replayPacing() async throws {
        let start = Date(timeIntervalSince1970: 0)
        let track = LocationTrack(
            fixes: [0, 10, 10, 40].map {
                LocationFix(latitude: 0, longitude: 0, timestamp: start.addingTimeInterval($0))
            })
        let slept = Mutex<[Duration]>([])
        let replay = ReplayLocationSource(track: track, speed: 10) { duration in slept.withLock { $0.append(duration) }
        }
        var count = 0
        for try await _ in replay.fixes() { count += 1 }
        #expect(count == 4)
        #expect(slept.withLock { $0 } == [.seconds(1), .seconds(3)])
        let instant = ReplayLocationSource(track: track, speed: 0) { _ in Issue.record("speed 0 must not sleep") }
        var fixes: [LocationFix] = []
        for try await fix in instant.fixes() { fixes.append(fix) }
        #expect(fixes == track.fixes)
    }

    @Test("a manual source hands reported fixes to its listeners until finished")
    func manual() async throws {
        let source = ManualLocationSource()
        let stream = source.fixes()
        let fix = LocationFix(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 0))
        source.report(fix)
        source.report(fix)
        source.finish()
        var received: [LocationFix] = []
        for try await item in stream { received.append(item) }
        #expect(received == [fix, fix])
        var after = 0
        for try await _ in source.fixes() { after += 1 }
        #expect(after == 0)
    }
}
