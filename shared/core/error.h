#pragma once

#include <QJsonObject>
#include <QString>

namespace ddl {

// An error a person can act on: a stable machine code, a human message, and the field or
// input it is about. It is also the one JSON error shape of the wire:
// {"error":{"code":"...","message":"...","field":"..."}}
struct Error
{
    QString code;    // e.g. "invalid_spec", "not_found", "session_expired"
    QString message; // what failed, with what input, and what to do
    QString field;   // optional: the field path or argument concerned
    QJsonObject details; // optional: more members of the wire error object (e.g. "errors")

    static Error make(const QString &code, const QString &message, const QString &field = {});

    QJsonObject toJson() const;
    // Reads the wire shape; returns std::nullopt-like empty code when the object is not one.
    static Error fromJson(const QJsonObject &object);
};

} // namespace ddl
