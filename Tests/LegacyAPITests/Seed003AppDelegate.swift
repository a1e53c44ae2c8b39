#if canImport(UIKit)
import UIKit
#else
import OpenUserNotificationsLegacy
#endif

// Seed 003 ("本地推送/本地通知"): the Objective-C AppDelegate.m of its "在 iOS 10之前" part, translated to Swift as an
// iOS 8/9 app would be written with UIKit's Swift names. Only the import block above is specific to Linux.
// Two changes beyond a literal translation, both plain iOS Swift: `NSLog` becomes the `log` property (print by
// default) so the test can read it, and `showInfo` logs instead of presenting a `UIAlertController` (not offered by
// the legacy module); `NSUserDefaults` is the `defaults` property (`.standard` by default) so the test can use its
// own suite. `instancesRespondToSelector:` needs no translation: every iOS Swift can target has the method.

private let kIGNOREKEY = "IGNOREKEY"
private let kOPENACTIONKEY = "OPENACTIONKEY"
private let kCATEGORYKEY = "ALERTCATEGORY"

class Seed003AppDelegate: UIResponder, UIApplicationDelegate {
    var log: (String) -> Void = { print($0) }
    var defaults = UserDefaults.standard

    func application(
        _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        // 如果已经获得发送通知的授权则创建本地通知,否则请求授权
        if let settings = UIApplication.shared.currentUserNotificationSettings, !settings.types.isEmpty {
            addLocalNotification()
        } else {
            // iOS 8 请求用户通知权限; 添加通知的动作
            let category = addLocalNotificationActions()
            let settings = UIUserNotificationSettings(types: [.badge, .alert, .sound], categories: [category])
            application.registerUserNotificationSettings(settings)
            // 在请求权限弹出的 Alert 选择中,用户选择 "好"时,会回调 application:didRegisterUserNotificationSettings:方法
        }

        // iOS 10 之前点击本地通知,从后台唤醒或启动 App 时在这个方法的 Options里获取 本地通知的 UserInfo;
        let notification = launchOptions?[.localNotification] as? UILocalNotification
        log("\(#function)  -- \(notification.map { "\($0)" } ?? "(null)")")

        // test app teminate 后,响应本地通知的 backgroundmode 的 acton后,再次启动,如果有打印即证明 …
        if let clickIgnoreActionStr = defaults.string(forKey: kIGNOREKEY), !clickIgnoreActionStr.isEmpty {
            log(clickIgnoreActionStr)
            defaults.removeObject(forKey: kIGNOREKEY)  // `setObject:nil forKey:`; `set(nil, forKey:)` hangs in Foundation on Linux
        }
        return true
    }

    // MARK: - 添加本地通知
    func addLocalNotification() {
        // 定义本地通知对象
        let notification = UILocalNotification()
        // 设置时区
        notification.timeZone = NSTimeZone.default
        // 设置调用时间
        notification.fireDate = Date(timeIntervalSinceNow: 10.0)  // 通知触发的时间,10s以后
        notification.repeatInterval = []  // 0表示不重复,即 fire 之后就 discard 该 notification
        // notification.repeatCalendar = Calendar.current

        // 设置通知属性
        notification.alertBody = "最近添加了诸多有趣的特性,是否立即体验?"  // 通知主体
        notification.applicationIconBadgeNumber = 1  // 应用程序图标右上角显示的消息数
        notification.alertAction = "打开应用"  // 待机界面的滑动动作提示
        notification.alertLaunchImage = "Default"  // 通过点击通知打开应用时的启动图片
        // notification.soundName = UILocalNotificationDefaultSoundName
        notification.soundName = "msg.caf"  // 通知声音

        // 设置用户信息
        notification.userInfo = ["id": 1234, "user": "Jacob"]  // 绑定到通知上的其他附加信息
        notification.category = kCATEGORYKEY

        // 调用通知
        UIApplication.shared.scheduleLocalNotification(notification)  // scheduleLocalNotification 方法会对 notification 对象进行 copy
        // UIApplication.shared.presentLocalNotificationNow(notification)
    }

    // MARK: - 添加通知的动作
    func addLocalNotificationActions() -> UIMutableUserNotificationCategory {
        let responseAction = UIMutableUserNotificationAction()
        responseAction.identifier = kOPENACTIONKEY
        responseAction.title = "打开应用"
        responseAction.activationMode = .foreground  // 点击的时候启动程序

        let deleteAction = UIMutableUserNotificationAction()
        deleteAction.identifier = kIGNOREKEY
        deleteAction.title = "忽略"
        deleteAction.activationMode = .background  // 点击的时候不启动程序,后台处理
        deleteAction.isAuthenticationRequired = true  // 需要解锁权限
        deleteAction.isDestructive = true  // YES为红色,NO为蓝色

        let category = UIMutableUserNotificationCategory()
        category.identifier = kCATEGORYKEY
        category.setActions([responseAction, deleteAction], for: .default)
        return category
    }

    // iOS 8 ~ 9 ,当点击本地通知自定义的响应按钮(action btn)时,根据按钮的 activeMode 模式,回调以下方法
    func application(
        _ application: UIApplication, handleActionWithIdentifier identifier: String?, for notification: UILocalNotification,
        completionHandler: @escaping () -> Void
    ) {
        if identifier == kOPENACTIONKEY {
            // ActivationModeForeground 的 action , 启动 App 让 App 在 Foreground 下响应
            showInfo("thread -\(Thread.current)\n identifier -\(identifier ?? "")")
        } else {
            // ActivationModeBackground 的 action 不启动 App 让 App 在 background 下响应
            log("\(#function)  -- \(notification)  -- identifier \(identifier ?? "") --- thread \(Thread.current)")
            defaults.set("ActivationModeBackground 的 action 不启动 App 让 App 在 background 下响应", forKey: "IGNOREKEY")
            defaults.synchronize()
        }
        completionHandler()  // 如果调用 completionHandler block 失败的话,App 会立即 terminated。
    }

    // APP在前台运行中收到 本地通知 时调用, 以及App 处于后台挂起(suspended)状态,但未 terminated 时,点击通知启动都是这个方法进行响应
    func application(_ application: UIApplication, didReceive notification: UILocalNotification) {
        log("\(#function) --- \(notification)")
    }

    // 调用过用户注册通知方法之后执行
    func application(_ application: UIApplication, didRegister notificationSettings: UIUserNotificationSettings) {
        if !notificationSettings.types.isEmpty {
            addLocalNotification()
        }
    }

    func applicationWillEnterForeground(_ application: UIApplication) {
        UIApplication.shared.applicationIconBadgeNumber = 0  // 进入前台取消应用消息图标
        // 获取本地通知数组
        let notifications = UIApplication.shared.scheduledLocalNotifications ?? []
        for notificaiton in notifications {
            log("\(notificaiton) \n")
        }
    }

    // MARK: - 移除本地通知,在不需要此通知时记得移除
    func removeNotification() {
        // 本地通知最多只能有64个,超过会被系统忽略
        let notifications = UIApplication.shared.scheduledLocalNotifications ?? []
        log("\(notifications)")
        // 删除指定通知
        // UIApplication.shared.cancelLocalNotification(notifications[0])
        // 删除所有通知
        // UIApplication.shared.cancelAllLocalNotifications()
    }

    func showInfo(_ infoStr: String) {
        log(infoStr)  // the seed presents a UIAlertController with this text
    }
}
