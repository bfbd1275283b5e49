"""Profiles, follower lists, follow/unfollow, blocks, circles and search."""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from profiles import auth, selectors, services
from profiles.documents import User
from profiles.forms import CircleNameForm, CirclePickForm, ProfileForm
from socialsite import extensions, ratelimit
from socialsite.http import login_required, redirect_back
from socialsite.ids import handle_or_404, parse_handle


def _active_user_or_404(handle_value: object) -> User:
    user = selectors.user_active(handle_or_404(handle_value))
    if user is None:
        raise Http404("No such user.")
    return user


def profile(request: HttpRequest, handle: str) -> HttpResponse:
    # Read with the session (one round trip for both), or the viewer's own.
    person = auth.page_user(request, handle_or_404(handle))
    if person is None:
        raise Http404("No such user.")
    context: dict[str, Any] = {
        "person": person,
        "rel": selectors.relationship(
            request.user, person, edges=auth.page_edges(request, person.handle)
        ),
    }
    if request.user.is_authenticated:
        context["circle_form"] = CirclePickForm(
            owner_circles=request.user.circles,
            initial={"circles": context["rel"].circles},
        )
    # What other apps add to the page (the wall, from feeds).
    context.update(extensions.page_context("profile", request, person))
    return render(request, "profiles/profile.html", context)


def _people_list(request: HttpRequest, handle: str, which: str) -> HttpResponse:
    person = _active_user_or_404(handle)
    after = parse_handle(request.GET.get("after"))
    page = (selectors.followers_page if which == "followers" else selectors.following_page)(
        person.handle, after
    )
    return render(
        request, "profiles/people_list.html", {"person": person, "page": page, "which": which}
    )


def followers(request: HttpRequest, handle: str) -> HttpResponse:
    return _people_list(request, handle, "followers")


def following(request: HttpRequest, handle: str) -> HttpResponse:
    return _people_list(request, handle, "following")


def _limited(request: HttpRequest, scope: str, rule: str) -> ratelimit.RateLimited | None:
    """Count one of the signed-in user's writes; the refusal if over the limit."""
    try:
        ratelimit.hit(scope, [f"user:{request.user.handle}"], rule)
    except ratelimit.RateLimited as exc:
        return exc
    return None


# The rate-limit setting of each scope of `_graph_action`.
RATE_RULES = {
    "follow": "RATELIMIT_FOLLOW",
    "circles": "RATELIMIT_CIRCLES",
    "mute": "RATELIMIT_MUTE",
}


def _person_with_session(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Outside `login_required`, which loads the session: ask that load to
    read the person a graph action is about along with the session and the
    viewer (one round trip for all, socialsite/sessions.py)."""

    @wraps(view)
    def wrapped(request: HttpRequest, handle: str, *args: Any, **kwargs: Any) -> HttpResponse:
        ask = getattr(request.session, "also_read_users", None)
        parsed = parse_handle(handle)
        if ask is not None and parsed is not None:
            ask([parsed])
        return view(request, handle, *args, **kwargs)

    return wrapped


def _graph_action(
    request: HttpRequest, handle: str, action: Callable[[User], str], *, scope: str = "follow"
) -> HttpResponse:
    """Run a follow/unfollow/block/unblock service; report errors as messages.

    Rate-limited per user: each of these backfills or prunes news feeds.
    The person came with the session's read (`_person_with_session`).
    """
    person = auth.page_user(request, handle_or_404(handle))
    if person is None:
        raise Http404("No such user.")
    rule = getattr(settings, RATE_RULES[scope])
    if refused := _limited(request, scope, rule):
        # As a refused vote does: 429, the person's page with the reason.
        messages.error(request, str(refused))
        response = profile(request, person.handle)
        response.status_code = 429
        return response
    fallback = reverse("profiles:profile", args=[person.handle])
    try:
        message = action(person)
    except services.GraphError as exc:
        messages.error(request, str(exc))
    except services.UnknownUser as exc:
        raise Http404("No such user.") from exc
    else:
        messages.success(request, message)
    return redirect_back(request, fallback)


@_person_with_session
@login_required
@require_POST
def follow(request: HttpRequest, handle: str) -> HttpResponse:
    def act(person: User) -> str:
        form = CirclePickForm(request.POST, owner_circles=request.user.circles)
        if not form.is_valid():
            raise services.GraphError("Pick circles from your own list.")
        circles = form.cleaned_data["circles"]
        services.follow_create(
            follower=request.user, followee=person.handle, circles=circles, target=person
        )
        where = f" in {', '.join(circles)}" if circles else ""
        return f"You follow {person.name}{where}."

    return _graph_action(request, handle, act)


@_person_with_session
@login_required
@require_POST
def unfollow(request: HttpRequest, handle: str) -> HttpResponse:
    def act(person: User) -> str:
        services.follow_delete(follower=request.user.handle, followee=person.handle)
        return f"You no longer follow {person.name}."

    return _graph_action(request, handle, act)


@_person_with_session
@login_required
@require_POST
def block(request: HttpRequest, handle: str) -> HttpResponse:
    def act(person: User) -> str:
        services.block_create(blocker=request.user, blocked=person.handle)
        return f"You blocked {person.name}. They can't follow you or reach you."

    return _graph_action(request, handle, act)


@_person_with_session
@login_required
@require_POST
def unblock(request: HttpRequest, handle: str) -> HttpResponse:
    def act(person: User) -> str:
        services.block_delete(blocker=request.user, blocked=person.handle)
        return f"You unblocked {person.name}."

    return _graph_action(request, handle, act)


@_person_with_session
@login_required
@require_POST
def mute(request: HttpRequest, handle: str) -> HttpResponse:
    def act(person: User) -> str:
        services.mute_create(user=request.user, handle=person.handle)
        return f"You muted {person.name}. Their posts leave your news feed; they are not told."

    return _graph_action(request, handle, act, scope="mute")


@_person_with_session
@login_required
@require_POST
def unmute(request: HttpRequest, handle: str) -> HttpResponse:
    def act(person: User) -> str:
        services.mute_delete(user=request.user, handle=person.handle)
        return f"You unmuted {person.name}."

    return _graph_action(request, handle, act, scope="mute")


@_person_with_session
@login_required
@require_POST
def set_circles(request: HttpRequest, handle: str) -> HttpResponse:
    def act(person: User) -> str:
        form = CirclePickForm(request.POST, owner_circles=request.user.circles)
        if not form.is_valid():
            raise services.GraphError("Pick circles from your own list.")
        services.circles_set_for(
            owner=request.user, member=person.handle, circles=form.cleaned_data["circles"]
        )
        return f"Circles for {person.name} saved."

    return _graph_action(request, handle, act, scope="circles")


@login_required
@require_http_methods(["GET", "POST"])
def profile_edit(request: HttpRequest) -> HttpResponse:
    user = request.user
    initial = {
        "name": user.name,
        "bio": user.profile.bio,
        "location": user.profile.location,
        "interests": ", ".join(user.profile.interests),
        "website": user.profile.website,
        "messages_from": user.messages_from or "everyone",
    }
    # Bound on every POST, even an empty one: the rate-limit error below is
    # added to it, and an unbound form has no cleaned_data to add it to.
    form = ProfileForm(request.POST if request.method == "POST" else None, initial=initial)
    status = 200
    if request.method == "POST":
        if refused := _limited(request, "profile_edit", settings.RATELIMIT_PROFILE_EDIT):
            form.add_error(None, str(refused))
            status = 429
        elif form.is_valid():
            services.profile_update(user=user, **form.cleaned_data)
            messages.success(request, "Profile saved.")
            return redirect("profiles:profile", handle=user.handle)
    return render(request, "profiles/profile_edit.html", {"form": form}, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def circles(request: HttpRequest) -> HttpResponse:
    """Circle management. A POST with `name` alone creates a circle."""
    owner = request.user
    create_form = CircleNameForm()
    status = 200
    refused = request.method == "POST" and _limited(request, "circles", settings.RATELIMIT_CIRCLES)
    if refused:
        messages.error(request, str(refused))
        status = 429
    elif request.method == "POST":
        action = request.POST.get("action", "create")
        try:
            if action == "create":
                create_form = CircleNameForm(request.POST)
                if not create_form.is_valid():
                    raise services.GraphError("Give the circle a name of up to 30 characters.")
                name = services.circle_create(owner=owner, name=create_form.cleaned_data["name"])
                messages.success(request, f"Circle “{name}” created.")
            elif action == "rename":
                old = _circle_param(request, "circle")
                new = services.circle_rename(owner=owner, old=old, new=request.POST.get("new"))
                messages.success(request, f"Circle “{old}” is now “{new}”.")
            elif action == "delete":
                name = _circle_param(request, "circle")
                services.circle_delete(owner=owner, name=name)
                messages.success(request, f"Circle “{name}” deleted. Its members stay followed.")
            elif action in ("add", "remove"):
                name = _circle_param(request, "circle")
                member = parse_handle(str(request.POST.get("member", "")).lstrip("@"))
                if member is None:
                    raise services.GraphError("Enter the handle of someone you follow.")
                if action == "add":
                    services.circle_add_member(owner=owner, name=name, member=member)
                    messages.success(request, f"@{member} added to “{name}”.")
                else:
                    services.circle_remove_member(owner=owner, name=name, member=member)
                    messages.success(request, f"@{member} removed from “{name}”.")
            else:
                raise services.GraphError("Unknown action.")
        except services.GraphError as exc:
            status = 400
            if action == "create" and create_form.is_bound:
                create_form.add_error("name", str(exc))
            else:
                messages.error(request, str(exc))
        else:
            return redirect("profiles:circles")
    context = {
        "overview": selectors.circles_overview(owner),
        "create_form": create_form,
        "blocked": selectors.blocked_people(owner),
        "muted": selectors.muted_people(owner),
    }
    return render(request, "profiles/circles.html", context, status=status)


def _circle_param(request: HttpRequest, field: str) -> str:
    name = request.POST.get(field)
    if not isinstance(name, str) or name not in request.user.circles:
        raise services.GraphError("Pick one of your circles.")
    return name


def search(request: HttpRequest) -> HttpResponse:
    query = str(request.GET.get("q", ""))[:80].strip()
    after = parse_handle(request.GET.get("after"))
    page = selectors.search_people(query, after, viewer=request.user) if query else None
    context: dict = {"q": query, "page": page}
    if page is not None:
        context["follow_states"] = selectors.follow_states(
            request.user, [p.handle for p in page.items]
        )
    # Other apps' results below the people (the posts, from feeds).
    context.update(extensions.page_context("search", request, query))
    return render(request, "profiles/search.html", context)
