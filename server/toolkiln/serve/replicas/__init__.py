"""Replicas sharing a Redis (`state.url`): the mailbox, forwarding answers, shared streams and
catalog news. Imported only when a state URL is set; the single server never imports it."""
