import BenchSupport
import Foundation

/// Progress goes to standard error; figures to standard output.
func progress(_ message: String) {
    FileHandle.standardError.write(Data("· \(message)\n".utf8))
}

func say(_ message: String = "") {
    FileHandle.standardOutput.write(Data("\(message)\n".utf8))
}
