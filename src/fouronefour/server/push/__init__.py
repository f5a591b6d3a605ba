"""Web Push (docs/push.md): notices that reach a player whose page is in the background or
closed: the server's VAPID keys, the devices each profile subscribed and the kinds it
switched off, and the :class:`~fouronefour.server.notify.Notifier` that sends through
``pywebpush``."""
