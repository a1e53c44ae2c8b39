import UnotifyCLI

@main
enum UnotifyMain {
    static func main() async {
        await Unotify.main(nil)
    }
}
