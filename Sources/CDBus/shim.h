// libdbus-1 for Swift: the DBusKit target wraps it (its `DBUS_TYPE_*` macros are casts Swift cannot import, and
// its variadic calls are not importable either; DBusKit uses the iterator API and its own type codes).
#include <dbus/dbus.h>
// The eventfd that wakes DBusKit's I/O thread (Glibc's Swift module does not include it).
#include <sys/eventfd.h>
