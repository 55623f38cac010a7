#ifndef REVEILLE_CLIBNOTIFY_SHIM_H
#define REVEILLE_CLIBNOTIFY_SHIM_H

#include <libnotify/notify.h>
#include <gio/gio.h>
#include <glib-unix.h>

/// `g_signal_connect` is a macro: connects the "closed" signal of a notification through
/// `g_signal_connect_data`, with `destroy` run when the handler goes (with the notification).
static inline gulong reveille_notification_connect_closed(
    NotifyNotification *notification,
    void (*callback)(NotifyNotification *notification, gpointer user_data),
    gpointer user_data,
    GClosureNotify destroy)
{
    return g_signal_connect_data(notification, "closed", G_CALLBACK(callback), user_data, destroy, (GConnectFlags)0);
}

/// `g_signal_connect` is a macro: connects a GSettings `changed::KEY` signal through
/// `g_signal_connect_data`, with `destroy` run when the handler goes.
static inline gulong reveille_settings_connect_changed(
    GSettings *settings,
    const char *detailed_signal,
    void (*callback)(GSettings *settings, const gchar *key, gpointer user_data),
    gpointer user_data,
    GClosureNotify destroy)
{
    return g_signal_connect_data(settings, detailed_signal, G_CALLBACK(callback), user_data, destroy, (GConnectFlags)0);
}

/// `NOTIFY_EXPIRES_NEVER` is a macro.
static inline gint reveille_notify_expires_never(void) { return NOTIFY_EXPIRES_NEVER; }

/// `G_PRIORITY_DEFAULT` is a macro.
static inline gint reveille_priority_default(void) { return G_PRIORITY_DEFAULT; }

/// `G_SOURCE_CONTINUE` / `G_SOURCE_REMOVE` are macros.
static inline gboolean reveille_source_continue(void) { return G_SOURCE_CONTINUE; }
static inline gboolean reveille_source_remove(void) { return G_SOURCE_REMOVE; }

#endif
