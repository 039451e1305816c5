#pragma once

#include "api/apirequest.h"

#include <QObject>
#include <functional>

namespace ddl::desktop {

// Calls done with the request's result once it finishes, unless context is gone by then, and
// frees the request afterwards. The GUI's one way of waiting for the server: it never blocks.
inline void whenFinished(ApiRequest *request, QObject *context,
                         std::function<void(const Result<ApiResponse> &)> done)
{
    QObject::connect(request, &ApiRequest::finished, context,
                     [request, done = std::move(done)] {
                         done(request->result());
                         request->deleteLater();
                     });
    // A request deleted unfinished (its client went away) simply never calls back.
    QObject::connect(context, &QObject::destroyed, request, &QObject::deleteLater);
}

} // namespace ddl::desktop
