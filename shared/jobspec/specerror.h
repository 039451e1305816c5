#pragma once

#include "core/error.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace ddl {

// One problem of a job spec: the path of the field it concerns (`taskRoles[1].gpuNumber`, or
// `job_data.worker_required` in a task.yaml; empty for the document as a whole) and what is wrong
// with it (`must be >= 0, got -1`).
struct SpecError
{
    QString field;
    QString message;

    // "field: message", or the message alone when no field is concerned.
    QString toString() const;
    // {"field": "...", "message": "..."}: one element of the wire's invalid_spec "errors" array.
    QJsonObject toJson() const;
    static SpecError fromJson(const QJsonObject &object);

    friend bool operator==(const SpecError &, const SpecError &) = default;
};

// The errors as the wire's invalid_spec "errors" array.
QJsonArray specErrorsToJson(const QList<SpecError> &errors);

// One "invalid_spec" Error: its message lists every error, one a line; its field is the first
// error's field.
Error specErrorsToError(const QList<SpecError> &errors);

} // namespace ddl
