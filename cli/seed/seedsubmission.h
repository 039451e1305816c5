#pragma once

#include "argumentparser.h"
#include "core/result.h"
#include "jobspec/jobspec.h"
#include "jobspec/specerror.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace ddl::cli {

// A job as the Paddle or ElasticDL command line describes it, read into DDL's terms: the spec,
// the folder that is its code (sent as it is on disk), and its data (a local folder to upload, or
// a dataset already on the server).
struct SeedSubmission
{
    JobSpec spec;
    QString packageFolder; // absolute
    QString datasetFolder; // absolute; empty when none or when datasetName is used
    QString datasetName;   // a dataset of the user's on the server
    QStringList notes;     // what the flags do differently here, printed before submitting
    std::optional<int> priority;
    bool allowUnschedulable = false;
};

// Reading the seeds' flags strictly: every error names the flag, the value given and what is
// expected. Relative paths start at workDir (where the command runs).
class SeedFlags
{
    Q_DECLARE_TR_FUNCTIONS(SeedFlags)
public:
    // A whole number >= minimum; fallback when the flag is not given.
    static Result<int>
    number(const ParsedArguments &arguments, const QString &flag, int minimum, int fallback);
    // true/false, 1/0, yes/no (any case); fallback when not given.
    static Result<bool>
    boolean(const ParsedArguments &arguments, const QString &flag, bool fallback);
    // An existing folder, made absolute.
    static Result<QString> folder(const QString &text, const QString &flag, const QString &workDir);
    // Data given as a folder (uploaded as the job's dataset) or as the name of one of the user's
    // datasets ("NAME" or "ddl://NAME"), into submission.
    static Status data(const QString &text,
                       const QString &flag,
                       const QString &workDir,
                       SeedSubmission &submission);
    // "KEY=VALUE" into envs; an invalid name or a key given twice with another value is an error.
    static Status environment(const QString &entry, const QString &flag, QJsonObject &envs);
    // --priority and --allow-unschedulable, as ddlcli submit has them.
    static QList<OptionSpec> queueOptions();
    static Status readQueueOptions(const ParsedArguments &arguments, SeedSubmission &submission);
    // "--format table|json": these commands' --output is the seed's output folder.
    static OptionSpec formatOption();

    // The validator's errors, each told as the flag that set the field (fieldFlags: a field path
    // or its prefix, "taskRoles[1].memoryMB" or "jobEnvs", to the flag), with the path after it.
    static Error specErrors(const QList<SpecError> &errors,
                            const QHash<QString, QString> &fieldFlags);
};

} // namespace ddl::cli
