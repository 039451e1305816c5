#pragma once

#include "wire/errorcode.h"

#include <QJsonObject>
#include <QString>

namespace ddl {

// An error a person can act on: a stable machine code, a human message, and the field or
// input it is about. It is also the one JSON error shape of the wire:
// {"error":{"code":"...","message":"...","field":"..."}}
struct Error
{
    QString code;    // codeName() of an ErrorCode, or "http_<status>" for an answer without one
    QString message; // what failed, with what input, and what to do
    QString field;   // optional: the field path or argument concerned
    QJsonObject details; // optional: more members of the wire error object (e.g. "errors")

    static Error make(ErrorCode code, const QString &message, const QString &field = {});
    // An HTTP answer that carried no error object (a proxy's 502): code "http_<status>".
    static Error httpStatus(int status, const QString &message);
    bool is(ErrorCode which) const { return code == codeName(which); }
    // The same error told with another message (the cause's code, field and details kept).
    Error withMessage(const QString &newMessage) const;

    QJsonObject toJson() const;
    // Reads the wire shape, synonyms of a code read as the code; an empty code when the object
    // is not one.
    static Error fromJson(const QJsonObject &object);
};

} // namespace ddl
