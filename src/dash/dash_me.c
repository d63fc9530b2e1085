/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A client's own switches, from its own page: brock paused for it alone, or off on a site for
 * it alone, for a while or until it turns brock on again. The same routes with ?client=NAME
 * are the owner's choice for one client (dash_views() refuses that to anyone else). A client
 * holds no token: these routes are refused with a foreign Origin (the door's SAME_ORIGIN),
 * and the owner's calls of them need the token as every change of the owner's does.
 */
#include "dash/dash.h"

#include <string.h>

#include "dash/dash_api.h"
#include "util/clock.h"

/* The client's switches, with everyone's pause beside them (the client's page says both). */
static int me_json(struct dash_call *x, const char *client)
{
    char *text = NULL;
    size_t len = 0;
    int64_t until = 0;
    int paused = brock_paused(x->e, clock_now_ms(), &until);
    json_t *all;

    if (brock_client_settings_json(x->e, client, &text, &len) < 0)
        return -1;
    json_decref(x->json);
    x->json = json_loadb(text, len, 0, NULL);
    brock_free(text);
    all =
        json_pack("{s:b, s:o}", "paused", paused, "paused_until_ms",
                  paused && until != BROCK_NO_END ? json_integer((json_int_t)until) : json_null());
    if (!x->json || !all || json_object_set_new(x->json, "everyone", all) < 0) {
        json_decref(all);
        return -1;
    }
    return 0;
}

/* Whose switches x is about into client: the caller's own, or with ?client= the owner's
 * pick. Returns 0; 1 when x was answered (a refusal, or this machine with none named, whose
 * switches are everyone's); -1. */
static int me_who(struct dash_call *x, char client[BROCK_CLIENT_MAX])
{
    int rc = dash_views(x, client);

    if (rc != 0)
        return rc;
    if (!client[0])
        return dash_error(x, 400,
                          "this machine's switches are everyone's (/api/pause, /api/disabled/); "
                          "name a client with ?client=NAME") < 0
                   ? -1
                   : 1;
    return 0;
}

int dash_api_me(struct dash_call *x)
{
    char client[BROCK_CLIENT_MAX];
    int rc = me_who(x, client);

    return rc != 0 ? (rc < 0 ? -1 : 0) : me_json(x, client);
}

int dash_api_me_pause_put(struct dash_call *x)
{
    char client[BROCK_CLIENT_MAX];
    int64_t ms = 0;
    int until_resume = 0, rc = me_who(x, client);

    if (rc != 0)
        return rc < 0 ? -1 : 0;
    if ((rc = dash_body_for(x, &ms, &until_resume)) < 0)
        return rc == -2 ? 0 : -1;
    if (!rc && !until_resume)
        return dash_error(x, 400,
                          "the body says how long: {\"for\": \"10m\"}, or "
                          "{\"until_resume\": true}");
    rc = brock_client_pause(x->e, client, rc ? clock_now_ms() + ms : BROCK_NO_END);
    if (rc == BROCK_EINVAL)
        return dash_error(x, 400, brock_engine_errmsg(x->e));
    return rc < 0 ? -1 : me_json(x, client);
}

int dash_api_me_pause_delete(struct dash_call *x)
{
    char client[BROCK_CLIENT_MAX];
    int rc = me_who(x, client);

    if (rc != 0)
        return rc < 0 ? -1 : 0;
    if ((rc = brock_client_resume(x->e, client)) == BROCK_EINVAL)
        return dash_error(x, 400, brock_engine_errmsg(x->e));
    return rc < 0 ? -1 : me_json(x, client);
}

/* PUT /api/me/disabled/SITE, with {"for": DURATION} for a while; DELETE: on again. */
static int me_disabled(struct dash_call *x, int off)
{
    char client[BROCK_CLIENT_MAX];
    int64_t ms = 0;
    int timed = 0, ignored, rc = me_who(x, client);

    if (rc != 0)
        return rc < 0 ? -1 : 0;
    if (off && (timed = dash_body_for(x, &ms, &ignored)) < 0)
        return timed == -2 ? 0 : -1;
    rc = brock_client_site_set_disabled(x->e, client, x->arg,
                                        !off    ? 0
                                        : timed ? clock_now_ms() + ms
                                                : BROCK_NO_END);
    if (rc == BROCK_EINVAL)
        return dash_error(x, 400, brock_engine_errmsg(x->e));
    return rc < 0 ? -1 : me_json(x, client);
}

int dash_api_me_disabled_put(struct dash_call *x)
{
    return me_disabled(x, 1);
}

int dash_api_me_disabled_delete(struct dash_call *x)
{
    return me_disabled(x, 0);
}

/* PUT and DELETE /api/me/widgets/SITE {"widget": NAME}: a widget the client always lets load
 * on SITE (a host), or no longer. */
static int me_widget(struct dash_call *x, int allow)
{
    char client[BROCK_CLIENT_MAX];
    json_t *body = NULL;
    const char *name;
    int rc = me_who(x, client);

    if (rc != 0)
        return rc < 0 ? -1 : 0;
    if (dash_body_object(x, &body) < 0)
        return -1;
    if (!body)
        return 0;
    if (!(name = json_string_value(json_object_get(body, "widget")))) {
        json_decref(body);
        return dash_error(x, 400, "the body names the widget: {\"widget\": NAME}");
    }
    rc = brock_client_widget_site_allow(x->e, client, x->arg, name, allow);
    json_decref(body);
    if (rc == BROCK_EINVAL)
        return dash_error(x, 400, brock_engine_errmsg(x->e));
    if (rc == BROCK_ENOTFOUND)
        return dash_error(x, 404, brock_engine_errmsg(x->e));
    return rc < 0 ? -1 : me_json(x, client);
}

int dash_api_me_widget_put(struct dash_call *x)
{
    return me_widget(x, 1);
}

int dash_api_me_widget_delete(struct dash_call *x)
{
    return me_widget(x, 0);
}
