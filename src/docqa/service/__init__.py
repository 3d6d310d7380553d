"""``docqa serve``: the HTTP service (FastAPI + uvicorn, extra ``docqa[serve]``).

``app`` builds the routes, ``keys`` reads the API keys and their tenants, ``live`` keeps the
index open and reopens it when it is replaced, ``streaming`` relays the model's stream off the
event loop, ``middleware`` holds the access log and the body limit, ``static/index.html`` is
the web page. Import ``docqa.service.app`` only when serving: it imports FastAPI.
"""
