// libdbus-1 for Swift, loaded at run time.
//
// The build needs no libdbus development package: this header declares, after libdbus 1.x's own headers, the few
// types, constants and functions DBusKit uses (libdbus's ABI has been stable since 1.0), and CDBus.c opens the
// system's `libdbus-1.so.3` with dlopen(3) the first time `cdbus_load` is called. Each function below is a static
// inline trampoline with libdbus's own name and signature that calls through the loaded symbol, so DBusKit reads as
// if it linked libdbus, and `ldd unotifyd` shows no libdbus.
//
// Call `cdbus_load` (DBusKit's `DBusLibrary.load()`) and check its answer before any other function here: they
// call through null pointers while the library is not loaded.
#ifndef CDBUS_H
#define CDBUS_H

#include <stdint.h>
#include <stddef.h>
// The eventfd that wakes DBusKit's I/O thread (Glibc's Swift module does not include it).
#include <sys/eventfd.h>

// MARK: - Types (dbus-types.h, dbus-errors.h, dbus-message.h, dbus-shared.h, dbus-connection.h, dbus-memory.h)

typedef uint32_t dbus_bool_t;
typedef uint32_t dbus_uint32_t;

typedef struct DBusConnection DBusConnection;
typedef struct DBusMessage DBusMessage;
typedef struct DBusPendingCall DBusPendingCall;

/// An error filled in by libdbus: `name` and `message` are public; the rest is libdbus's.
typedef struct DBusError {
    const char *name;
    const char *message;
    unsigned int dummy1 : 1;
    unsigned int dummy2 : 1;
    unsigned int dummy3 : 1;
    unsigned int dummy4 : 1;
    unsigned int dummy5 : 1;
    void *padding1;
} DBusError;

/// A message iterator, stack-allocated by the caller; its fields are libdbus's (64-bit and 32-bit layouts agree).
typedef struct DBusMessageIter {
    void *dummy1;
    void *dummy2;
    dbus_uint32_t dummy3;
    int dummy4;
    int dummy5;
    int dummy6;
    int dummy7;
    int dummy8;
    int dummy9;
    int dummy10;
    int dummy11;
    int pad1;
    void *pad2;
    void *pad3;
} DBusMessageIter;

typedef enum {
    DBUS_HANDLER_RESULT_HANDLED,
    DBUS_HANDLER_RESULT_NOT_YET_HANDLED,
    DBUS_HANDLER_RESULT_NEED_MEMORY
} DBusHandlerResult;

typedef enum {
    DBUS_DISPATCH_DATA_REMAINS,
    DBUS_DISPATCH_COMPLETE,
    DBUS_DISPATCH_NEED_MEMORY
} DBusDispatchStatus;

// Plain integer macros, which Swift imports as Int32 (libdbus's own are `((int) ...)` casts).
#define DBUS_MESSAGE_TYPE_INVALID 0
#define DBUS_MESSAGE_TYPE_METHOD_CALL 1
#define DBUS_MESSAGE_TYPE_METHOD_RETURN 2
#define DBUS_MESSAGE_TYPE_ERROR 3
#define DBUS_MESSAGE_TYPE_SIGNAL 4
#define DBUS_TIMEOUT_INFINITE 0x7fffffff

typedef void (*DBusFreeFunction)(void *memory);
typedef DBusHandlerResult (*DBusHandleMessageFunction)(
    DBusConnection *connection, DBusMessage *message, void *user_data);
typedef void (*DBusPendingCallNotifyFunction)(DBusPendingCall *pending, void *user_data);

// MARK: - Loading

/// Every libdbus function DBusKit calls, resolved from the loaded library. X(return type, name, parameters,
/// arguments) once per function: CDBus.c resolves them, and the trampolines below call them.
#define CDBUS_FUNCTIONS(X) \
    X(dbus_bool_t, dbus_threads_init_default, (void), ()) \
    X(void, dbus_error_init, (DBusError *error), (error)) \
    X(void, dbus_error_free, (DBusError *error), (error)) \
    X(dbus_bool_t, dbus_error_is_set, (const DBusError *error), (error)) \
    X(void, dbus_free, (void *memory), (memory)) \
    X(DBusConnection *, dbus_connection_open_private, (const char *address, DBusError *error), (address, error)) \
    X(void, dbus_connection_set_exit_on_disconnect, (DBusConnection *connection, dbus_bool_t exit), \
      (connection, exit)) \
    X(dbus_bool_t, dbus_bus_register, (DBusConnection *connection, DBusError *error), (connection, error)) \
    X(const char *, dbus_bus_get_unique_name, (DBusConnection *connection), (connection)) \
    X(void, dbus_connection_close, (DBusConnection *connection), (connection)) \
    X(void, dbus_connection_unref, (DBusConnection *connection), (connection)) \
    X(dbus_bool_t, dbus_connection_add_filter, \
      (DBusConnection *connection, DBusHandleMessageFunction function, void *user_data, \
       DBusFreeFunction free_data_function), \
      (connection, function, user_data, free_data_function)) \
    X(DBusDispatchStatus, dbus_connection_dispatch, (DBusConnection *connection), (connection)) \
    X(dbus_bool_t, dbus_connection_get_is_connected, (DBusConnection *connection), (connection)) \
    X(dbus_bool_t, dbus_connection_get_unix_fd, (DBusConnection *connection, int *fd), (connection, fd)) \
    X(dbus_bool_t, dbus_connection_has_messages_to_send, (DBusConnection *connection), (connection)) \
    X(dbus_bool_t, dbus_connection_read_write, (DBusConnection *connection, int timeout_milliseconds), \
      (connection, timeout_milliseconds)) \
    X(dbus_bool_t, dbus_connection_send, \
      (DBusConnection *connection, DBusMessage *message, dbus_uint32_t *client_serial), \
      (connection, message, client_serial)) \
    X(dbus_bool_t, dbus_connection_send_with_reply, \
      (DBusConnection *connection, DBusMessage *message, DBusPendingCall **pending_return, int timeout_milliseconds), \
      (connection, message, pending_return, timeout_milliseconds)) \
    X(DBusMessage *, dbus_message_new_method_call, \
      (const char *bus_name, const char *path, const char *iface, const char *method), \
      (bus_name, path, iface, method)) \
    X(DBusMessage *, dbus_message_new_signal, (const char *path, const char *iface, const char *name), \
      (path, iface, name)) \
    X(void, dbus_message_unref, (DBusMessage *message), (message)) \
    X(int, dbus_message_get_type, (DBusMessage *message), (message)) \
    X(const char *, dbus_message_get_sender, (DBusMessage *message), (message)) \
    X(const char *, dbus_message_get_path, (DBusMessage *message), (message)) \
    X(const char *, dbus_message_get_interface, (DBusMessage *message), (message)) \
    X(const char *, dbus_message_get_member, (DBusMessage *message), (message)) \
    X(const char *, dbus_message_get_error_name, (DBusMessage *message), (message)) \
    X(dbus_bool_t, dbus_message_set_destination, (DBusMessage *message, const char *destination), \
      (message, destination)) \
    X(dbus_bool_t, dbus_message_iter_init, (DBusMessage *message, DBusMessageIter *iter), (message, iter)) \
    X(void, dbus_message_iter_init_append, (DBusMessage *message, DBusMessageIter *iter), (message, iter)) \
    X(dbus_bool_t, dbus_message_iter_next, (DBusMessageIter *iter), (iter)) \
    X(int, dbus_message_iter_get_arg_type, (DBusMessageIter *iter), (iter)) \
    X(int, dbus_message_iter_get_element_type, (DBusMessageIter *iter), (iter)) \
    X(void, dbus_message_iter_recurse, (DBusMessageIter *iter, DBusMessageIter *sub), (iter, sub)) \
    X(void, dbus_message_iter_get_basic, (DBusMessageIter *iter, void *value), (iter, value)) \
    X(char *, dbus_message_iter_get_signature, (DBusMessageIter *iter), (iter)) \
    X(dbus_bool_t, dbus_message_iter_append_basic, (DBusMessageIter *iter, int type, const void *value), \
      (iter, type, value)) \
    X(dbus_bool_t, dbus_message_iter_open_container, \
      (DBusMessageIter *iter, int type, const char *contained_signature, DBusMessageIter *sub), \
      (iter, type, contained_signature, sub)) \
    X(dbus_bool_t, dbus_message_iter_close_container, (DBusMessageIter *iter, DBusMessageIter *sub), (iter, sub)) \
    X(void, dbus_message_iter_abandon_container, (DBusMessageIter *iter, DBusMessageIter *sub), (iter, sub)) \
    X(dbus_bool_t, dbus_pending_call_set_notify, \
      (DBusPendingCall *pending, DBusPendingCallNotifyFunction function, void *user_data, \
       DBusFreeFunction free_user_data), \
      (pending, function, user_data, free_user_data)) \
    X(DBusMessage *, dbus_pending_call_steal_reply, (DBusPendingCall *pending), (pending)) \
    X(void, dbus_pending_call_cancel, (DBusPendingCall *pending), (pending)) \
    X(void, dbus_pending_call_unref, (DBusPendingCall *pending), (pending)) \
    X(dbus_bool_t, dbus_validate_path, (const char *path, DBusError *error), (path, error)) \
    X(dbus_bool_t, dbus_validate_interface, (const char *name, DBusError *error), (name, error)) \
    X(dbus_bool_t, dbus_validate_member, (const char *name, DBusError *error), (name, error)) \
    X(dbus_bool_t, dbus_validate_bus_name, (const char *name, DBusError *error), (name, error))

/// The resolved functions, one pointer each, named after them (`cdbus_functions.dbus_message_unref`).
typedef struct {
#define CDBUS_POINTER(result, name, parameters, arguments) result (*name) parameters;
    CDBUS_FUNCTIONS(CDBUS_POINTER)
#undef CDBUS_POINTER
} CDBusFunctions;

/// Filled in by a successful `cdbus_load`; all null before.
extern CDBusFunctions cdbus_functions;

/// Opens libdbus and resolves every function above, once per process (later calls answer the first one's result).
///
/// The library is `path` when it is not null and not empty, else `libdbus-1.so.3` found the way dlopen(3) finds
/// it. Returns null on success, or a description of the failure (dlerror's text, or the missing symbol): the
/// string is owned by this module and stays valid.
const char *cdbus_load(const char *path);

// MARK: - Trampolines with libdbus's names

#define CDBUS_TRAMPOLINE(result, name, parameters, arguments) \
    static inline result name parameters { return cdbus_functions.name arguments; }
CDBUS_FUNCTIONS(CDBUS_TRAMPOLINE)
#undef CDBUS_TRAMPOLINE

#endif
