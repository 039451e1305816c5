#pragma once

#include "core/result.h"
#include "jobspec.h"
#include "specerror.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace ddl {

// What a parser found: the spec when it is valid, or every error of it at once.
struct SpecParseResult
{
    std::optional<JobSpec> spec; // set exactly when errors is empty
    QList<SpecError> errors;

    bool ok() const { return spec.has_value() && errors.isEmpty(); }
    // The spec, or one "invalid_spec" Error listing every error (see specErrorsToError()).
    Result<JobSpec> toResult() const;
};

// Reads a job spec from the forms users write (DDL task.yaml, OpenPAI job JSON) and from the
// wire, checks it with JobSpecValidator and reports all errors together, each with the path of
// its field as the user wrote it. Syntax errors name their line and column. Never throws.
class JobSpecParser
{
public:
    // An OpenPAI job JSON: jobName, image, dataDir, outputDir, codeDir, taskRoles,
    // killAllOnCompletedTaskNumber, retryCount. Gives a spec of kind OpenPai.
    static SpecParseResult parsePaiJsonDetailed(const QByteArray &json);
    static Result<JobSpec> parsePaiJson(const QByteArray &json);

    // A DDL task.yaml (job_data: job_name, dataset.dataset_location, worker_required, ...).
    // defaultName is the job name when job_data.job_name is absent (e.g. the repository's
    // folder name). Gives a spec of kind Ddl with one task role "worker".
    static SpecParseResult parseTaskYamlDetailed(const QByteArray &yaml,
                                                 const QString &defaultName);
    static Result<JobSpec> parseTaskYaml(const QByteArray &yaml, const QString &defaultName);

    // The wire form (JobSpec::toJson()): the OpenPAI fields plus a required "kind". For kind
    // "ddl", image and command may be empty or absent.
    static SpecParseResult parseWireDetailed(const QJsonObject &object);
    static Result<JobSpec> parseWire(const QJsonObject &object);

    // A file by its extension: .json is an OpenPAI job, .yaml/.yml a DDL task.yaml. A file that
    // cannot be read gives an "io_error" from parseFile().
    static SpecParseResult parseFileDetailed(const QString &path, const QString &defaultName);
    static Result<JobSpec> parseFile(const QString &path, const QString &defaultName);
};

} // namespace ddl
