// The legacy API is a layer over the Apple-shaped one: apps importing this module also see the UN* names and
// Foundation, as an iOS app importing UIKit sees Foundation.
@_exported import OpenUserNotifications
