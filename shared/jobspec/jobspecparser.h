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
    // Fields of an OpenPAI config that were accepted but have no effect here (the spec's
    // noEffectNotes() and, for protocol v2, fields with no place in a JobSpec): show them.
    QStringList notes;

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

    // OpenPAI's protocol v2 YAML (protocolVersion: 2, name, type: job, prerequisites,
    // parameters, secrets, taskRoles by name, deployments, defaults, extras). Errors name the v2
    // fields (`taskRoles.worker.resourcePerInstance.gpu: must be >= 0, got -1`).
    static SpecParseResult parsePaiV2Detailed(const QByteArray &yaml);

    // An OpenPAI config of either kind, told apart by its content: a JSON object is a v1 job
    // (with // and /* */ comments allowed) unless it has protocolVersion; YAML (or JSON) with
    // protocolVersion is a v2 job.
    static SpecParseResult parsePaiConfigDetailed(const QByteArray &text);
    static Result<JobSpec> parsePaiConfig(const QByteArray &text);
    // Whether text is an OpenPAI config (v1 JSON or v2) rather than a DDL task.yaml.
    static bool isPaiConfig(const QByteArray &text);

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

    // A file: .json is an OpenPAI job (v1, or v2 written as JSON); .yaml/.yml is OpenPAI's
    // protocol v2 when it has protocolVersion, else a DDL task.yaml. A file that cannot be read
    // gives an "io_error" from parseFile().
    static SpecParseResult parseFileDetailed(const QString &path, const QString &defaultName);
    static Result<JobSpec> parseFile(const QString &path, const QString &defaultName);
};

} // namespace ddl
