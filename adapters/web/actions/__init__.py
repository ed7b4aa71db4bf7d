"""The web adapter's application layer: what an endpoint does, once for ``/api`` and ``/app``.

A route authenticates (admin token or browser session), checks ownership, names its target
(the operator names any list or chat; the browser its own) and calls a function here, which
calls the service and desks and returns a response Struct of ``adapters.web.schemas``.
"""
