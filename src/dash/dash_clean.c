/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Tracking parameters, from the dashboard: the sites where links are left as they are, and the
 * parameter names learned as link decoration, each kept in links or forgotten. And the names a
 * CNAME chain from DNS is judged no further at.
 */
#include "dash/dash.h"

#include <string.h>

#include "dash/dash_api.h"

static int clean_off_change(struct dash_call *x, int off)
{
    int rc = brock_clean_site_set(x->e, x->arg, off);

    if (rc == BROCK_EINVAL)
        return dash_error(x, 400, brock_engine_errmsg(x->e));
    return rc < 0 ? -1 : dash_api_settings(x);
}

static int uncloak_off_change(struct dash_call *x, int off)
{
    int rc = brock_cname_target_set(x->e, x->arg, off);

    if (rc == BROCK_EINVAL)
        return dash_error(x, 400, brock_engine_errmsg(x->e));
    return rc < 0 ? -1 : dash_api_settings(x);
}

int dash_api_clean_off_put(struct dash_call *x)
{
    return clean_off_change(x, 1);
}

int dash_api_clean_off_delete(struct dash_call *x)
{
    return clean_off_change(x, 0);
}

int dash_api_uncloak_off_put(struct dash_call *x)
{
    return uncloak_off_change(x, 1);
}

int dash_api_uncloak_off_delete(struct dash_call *x)
{
    return uncloak_off_change(x, 0);
}

int dash_api_params(struct dash_call *x)
{
    char *text = NULL;
    size_t len = 0;

    if (brock_link_params_json(x->e, &text, &len) < 0)
        return -1;
    json_decref(x->json);
    x->json = json_loadb(text, len, 0, NULL);
    brock_free(text);
    return x->json ? 0 : -1;
}

int dash_api_param_put(struct dash_call *x)
{
    json_t *body = NULL, *keep;
    int rc;

    if (dash_body_object(x, &body) < 0)
        return -1;
    if (!body)
        return 0;
    keep = json_object_get(body, "keep");
    if (!json_is_boolean(keep) || json_object_size(body) != 1) {
        json_decref(body);
        return dash_error(x, 400, "the body is {\"keep\": true} or {\"keep\": false}");
    }
    rc = brock_link_param_keep(x->e, x->arg, json_is_true(keep));
    json_decref(body);
    if (rc == BROCK_EINVAL)
        return dash_error(x, 400, brock_engine_errmsg(x->e));
    return rc < 0 ? -1 : dash_api_params(x);
}

int dash_api_param_delete(struct dash_call *x)
{
    int rc = brock_link_param_forget(x->e, x->arg);

    if (rc == BROCK_ENOTFOUND)
        return dash_error(x, 404, brock_engine_errmsg(x->e));
    return rc < 0 ? -1 : dash_api_params(x);
}
