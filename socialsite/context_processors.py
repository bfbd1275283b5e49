from socialsite import mongo


def site(request):
    return {
        "user": getattr(request, "user", None),
        "demo_mode": mongo.is_demo(),
    }
