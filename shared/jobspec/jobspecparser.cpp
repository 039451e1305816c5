#include "jobspecparser.h"

#include "jobspecvalidator.h"
#include "jsoncomments.h"
#include "paiprotocolv2.h"
#include "specreaders.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSet>
#include <QStringList>

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <exception>
#include <limits>
#include <utility>

namespace ddl {

namespace {

using namespace specread;

constexpr qint64 MaxFileSize = 4 * 1024 * 1024;

SpecParseResult finish(JobSpec spec, QList<SpecError> errors)
{
    SpecParseResult result;
    if (errors.isEmpty())
        result.spec = std::move(spec);
    result.errors = std::move(errors);
    return result;
}

SpecParseResult failure(const QString &message)
{
    SpecParseResult result;
    result.errors.append(SpecError{QString(), message});
    return result;
}

// ---- JSON -------------------------------------------------------------------------------------

QString jsonTypeName(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return QStringLiteral("boolean");
    case QJsonValue::Double:
        return QStringLiteral("number");
    case QJsonValue::String:
        return QStringLiteral("string");
    case QJsonValue::Array:
        return QStringLiteral("array");
    case QJsonValue::Object:
        return QStringLiteral("object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

// Reads the fields of one JSON object by name; a key that nobody asked for is an unknown field.
class JsonObjectReader
{
public:
    JsonObjectReader(const QJsonObject &object, const QString &path, Collector &collector)
        : m_object(object)
        , m_path(path)
        , m_collector(collector)
    {
    }

    std::optional<QString> string(QLatin1String key, Presence presence)
    {
        const std::optional<QJsonValue> value = take(key, presence);
        if (!value)
            return std::nullopt;
        if (!value->isString()) {
            wrongType(key, QStringLiteral("a string"), *value);
            return std::nullopt;
        }
        return value->toString();
    }

    std::optional<int> integer(QLatin1String key, Presence presence)
    {
        const std::optional<QJsonValue> value = take(key, presence);
        if (!value)
            return std::nullopt;
        if (!value->isDouble()) {
            wrongType(key, QStringLiteral("an integer"), *value);
            return std::nullopt;
        }
        const double number = value->toDouble();
        const QString text = QString::number(number, 'g', 15);
        if (!std::isfinite(number) || std::trunc(number) != number) {
            m_collector.add(childPath(m_path, key),
                            QStringLiteral("must be an integer, got ") + text);
            return std::nullopt;
        }
        if (number < IntMin || number > IntMax) {
            m_collector.add(childPath(m_path, key), outOfIntRange(text));
            return std::nullopt;
        }
        return int(number);
    }

    // An integer that may be null (OpenPAI's "null or >= 1"): null gives nullopt, an absent key
    // the fallback.
    std::optional<int> nullableInteger(QLatin1String key, std::optional<int> fallback)
    {
        const QJsonValue value = m_object.value(key);
        if (value.isNull() || value.isUndefined()) {
            m_known.append(key);
            return value.isNull() ? std::nullopt : fallback;
        }
        return integer(key, Presence::Optional);
    }

    std::optional<QJsonObject> object(QLatin1String key, Presence presence)
    {
        const std::optional<QJsonValue> value = take(key, presence);
        if (!value)
            return std::nullopt;
        if (!value->isObject()) {
            wrongType(key, QStringLiteral("an object"), *value);
            return std::nullopt;
        }
        return value->toObject();
    }

    std::optional<QJsonArray> array(QLatin1String key, Presence presence)
    {
        const std::optional<QJsonValue> value = take(key, presence);
        if (!value)
            return std::nullopt;
        if (!value->isArray()) {
            wrongType(key, QStringLiteral("an array"), *value);
            return std::nullopt;
        }
        return value->toArray();
    }

    // Reports every key that was not asked for, naming the ones that were.
    void reportUnknownFields()
    {
        const QString known = m_known.join(QLatin1String(", "));
        for (const QString &key : m_object.keys()) {
            if (!m_known.contains(key))
                m_collector.add(childPath(m_path, key),
                                QStringLiteral("unknown field; known fields are: ") + known);
        }
    }

private:
    std::optional<QJsonValue> take(QLatin1String key, Presence presence)
    {
        m_known.append(key);
        const auto found = m_object.constFind(key);
        if (found == m_object.constEnd()) {
            if (presence == Presence::Required)
                m_collector.add(childPath(m_path, key), QStringLiteral("is required"));
            return std::nullopt;
        }
        return found.value();
    }

    void wrongType(QLatin1String key, const QString &expected, const QJsonValue &value)
    {
        m_collector.add(childPath(m_path, key),
                        QStringLiteral("must be %1, got %2").arg(expected, jsonTypeName(value)));
    }

    const QJsonObject &m_object;
    QString m_path;
    Collector &m_collector;
    QStringList m_known;
};

// "syntax error at line L, column C: what", from the byte offset Qt reports.
QString jsonSyntaxError(const QByteArray &data, const QJsonParseError &error)
{
    return QStringLiteral("syntax error at %1: %2")
        .arg(JsonComments::position(data, error.offset), error.errorString());
}

// The portList of a task role: [{label, beginAt, portNumber}].
QList<PortRequest> readPortList(const QJsonArray &array, const QString &path, Collector &collector)
{
    QList<PortRequest> ports;
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString portPath = elementPath(path, i);
        PortRequest port;
        if (!array.at(i).isObject()) {
            collector.add(portPath,
                          QStringLiteral("must be an object {\"label\", \"beginAt\", "
                                         "\"portNumber\"}, got ") +
                              jsonTypeName(array.at(i)));
            ports.append(port);
            continue;
        }
        const QJsonObject object = array.at(i).toObject();
        JsonObjectReader reader(object, portPath, collector);
        port.label = reader.string(QLatin1String("label"), Presence::Required).value_or(QString());
        port.beginAt =
            reader.integer(QLatin1String("beginAt"), Presence::Optional).value_or(port.beginAt);
        port.portNumber = reader.integer(QLatin1String("portNumber"), Presence::Optional)
                              .value_or(port.portNumber);
        reader.reportUnknownFields();
        ports.append(port);
    }
    return ports;
}

// jobEnvs: every value a string, number or boolean (what an environment can hold).
QJsonObject readJobEnvs(const QJsonObject &object, Collector &collector)
{
    QJsonObject envs;
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QJsonValue value = it.value();
        if (value.isString() || value.isDouble() || value.isBool())
            envs.insert(it.key(), value);
        else
            collector.add(childPath(QStringLiteral("jobEnvs"), it.key()),
                          QStringLiteral("must be a string, number or boolean, got ") +
                              jsonTypeName(value));
    }
    return envs;
}

// Reads the OpenPAI fields of root (plus "kind" for the wire form) into a spec.
JobSpec readPaiObject(const QJsonObject &root, bool wire, Collector &collector)
{
    JobSpec spec;
    JsonObjectReader reader(root, QString(), collector);
    if (wire) {
        // A kind that is missing or wrong gets the lenient rules, so that the other errors
        // reported are real ones.
        spec.kind = JobSpec::Kind::Ddl;
        if (const std::optional<QString> kind =
                reader.string(QLatin1String("kind"), Presence::Required)) {
            if (const std::optional<JobSpec::Kind> known = JobSpec::kindFromName(*kind))
                spec.kind = *known;
            else
                collector.add(QStringLiteral("kind"),
                              QStringLiteral("must be \"ddl\" or \"openpai\", got ") +
                                  quoted(*kind));
        }
    } else {
        spec.kind = JobSpec::Kind::OpenPai;
    }
    const Presence ifOpenPai =
        spec.kind == JobSpec::Kind::OpenPai ? Presence::Required : Presence::Optional;

    spec.jobName = reader.string(QLatin1String("jobName"), Presence::Required).value_or(QString());
    spec.image = reader.string(QLatin1String("image"), ifOpenPai).value_or(QString());
    spec.dataDir = reader.string(QLatin1String("dataDir"), Presence::Optional).value_or(QString());
    spec.outputDir =
        reader.string(QLatin1String("outputDir"), Presence::Optional).value_or(QString());
    spec.codeDir = reader.string(QLatin1String("codeDir"), Presence::Optional).value_or(QString());

    const QString rolesPath = QStringLiteral("taskRoles");
    if (const std::optional<QJsonArray> roles =
            reader.array(QLatin1String("taskRoles"), Presence::Required)) {
        for (qsizetype i = 0; i < roles->size(); ++i) {
            const QJsonValue value = roles->at(i);
            const QString path = elementPath(rolesPath, i);
            TaskRole role;
            if (!value.isObject()) {
                collector.add(path,
                              QStringLiteral("must be an object, got ") + jsonTypeName(value));
                spec.taskRoles.append(role); // keeps the indices of later roles right
                continue;
            }
            const QJsonObject object = value.toObject();
            JsonObjectReader roleReader(object, path, collector);
            role.name =
                roleReader.string(QLatin1String("name"), Presence::Required).value_or(QString());
            role.taskNumber = roleReader.integer(QLatin1String("taskNumber"), Presence::Required)
                                  .value_or(role.taskNumber);
            role.cpuNumber = roleReader.integer(QLatin1String("cpuNumber"), Presence::Required)
                                 .value_or(role.cpuNumber);
            role.memoryMB = roleReader.integer(QLatin1String("memoryMB"), Presence::Required)
                                .value_or(role.memoryMB);
            role.gpuNumber = roleReader.integer(QLatin1String("gpuNumber"), Presence::Required)
                                 .value_or(role.gpuNumber);
            role.command =
                roleReader.string(QLatin1String("command"), ifOpenPai).value_or(QString());
            role.shmMB =
                roleReader.integer(QLatin1String("shmMB"), Presence::Optional).value_or(role.shmMB);
            if (const std::optional<QJsonArray> ports =
                    roleReader.array(QLatin1String("portList"), Presence::Optional))
                role.portList =
                    readPortList(*ports, childPath(path, QStringLiteral("portList")), collector);
            role.minFailedTaskCount = roleReader.nullableInteger(
                QLatin1String("minFailedTaskCount"), role.minFailedTaskCount);
            role.minSucceededTaskCount = roleReader.nullableInteger(
                QLatin1String("minSucceededTaskCount"), role.minSucceededTaskCount);
            roleReader.reportUnknownFields();
            spec.taskRoles.append(role);
        }
    }

    spec.killAllOnCompletedTaskNumber =
        reader.integer(QLatin1String("killAllOnCompletedTaskNumber"), Presence::Optional)
            .value_or(0);
    spec.retryCount = reader.integer(QLatin1String("retryCount"), Presence::Optional).value_or(0);
    if (const std::optional<QJsonObject> envs =
            reader.object(QLatin1String("jobEnvs"), Presence::Optional))
        spec.jobEnvs = readJobEnvs(*envs, collector);
    spec.authFile =
        reader.string(QLatin1String("authFile"), Presence::Optional).value_or(QString());
    spec.virtualCluster =
        reader.string(QLatin1String("virtualCluster"), Presence::Optional).value_or(QString());
    spec.gpuType = reader.string(QLatin1String("gpuType"), Presence::Optional).value_or(QString());
    spec.minWorkerTrust =
        reader.integer(QLatin1String("minWorkerTrust"), Presence::Optional).value_or(0);
    spec.extras =
        reader.object(QLatin1String("extras"), Presence::Optional).value_or(QJsonObject());
    reader.reportUnknownFields();
    return spec;
}

SpecParseResult parsePaiObject(const QJsonObject &root, bool wire)
{
    Collector collector;
    const JobSpec spec = readPaiObject(root, wire, collector);
    QList<SpecError> errors = collector.errors;
    errors += JobSpecValidator::validate(spec, collector.bad);
    SpecParseResult result = finish(spec, errors);
    if (result.spec && !wire)
        result.notes = result.spec->noEffectNotes();
    return result;
}

// YAML text as a document, or the syntax error that stops it. yaml-cpp reports everything by
// exceptions; none leaves this function.
std::optional<YAML::Node> loadYaml(const QByteArray &yaml, SpecParseResult &failed)
{
    try {
        return YAML::Load(yaml.toStdString());
    } catch (const YAML::Exception &e) {
        if (e.mark.is_null())
            failed = failure(QStringLiteral("syntax error: %1").arg(QString::fromStdString(e.msg)));
        else
            failed = failure(QStringLiteral("syntax error at line %1, column %2: %3")
                                 .arg(e.mark.line + 1)
                                 .arg(e.mark.column + 1)
                                 .arg(QString::fromStdString(e.msg)));
    } catch (const std::exception &e) {
        failed = failure(QStringLiteral("cannot read the YAML document: %1")
                             .arg(QString::fromLocal8Bit(e.what())));
    }
    return std::nullopt;
}

SpecParseResult readPaiV2(const YAML::Node &root)
{
    PaiProtocolV2::Conversion conversion;
    // Every lookup checks its node first; this catches what slips through, as nothing may throw.
    try {
        conversion = PaiProtocolV2::convert(root);
    } catch (const std::exception &e) {
        return failure(QStringLiteral("cannot read the protocol v2 document: %1")
                           .arg(QString::fromLocal8Bit(e.what())));
    }
    if (!conversion.errors.isEmpty())
        return finish(JobSpec(), conversion.errors);
    SpecParseResult result = parsePaiObject(conversion.job, false);
    for (SpecError &error : result.errors)
        error.field = PaiProtocolV2::v2Path(conversion, error.field);
    if (result.spec)
        result.notes = conversion.notes + result.notes;
    return result;
}

// The first character that is not blank or in a comment.
char firstSignificant(const QByteArray &text)
{
    const QByteArray stripped = JsonComments::strip(text).json;
    for (const char c : stripped) {
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return c;
    }
    return 0;
}

// ---- YAML -------------------------------------------------------------------------------------

// The task.yaml keys that become JobSpec fields, with the wire path the validator uses.
struct FieldAlias
{
    const char *wire;
    const char *yaml;
};

constexpr FieldAlias YamlAliases[] = {
    {"jobName", "job_data.job_name"},
    {"taskRoles[0].taskNumber", "job_data.worker_required"},
    {"taskRoles[0].gpuNumber", "job_data.gpu_per_worker"},
    {"taskRoles[0].cpuNumber", "job_data.cpu_per_worker"},
    {"taskRoles[0].memoryMB", "job_data.memory_mb_per_worker"},
    {"retryCount", "job_data.retry_count"},
    {"image", "job_data.image"},
    {"minWorkerTrust", "job_data.min_worker_trust"},
};

SpecParseResult readTaskYaml(const YAML::Node &root, const QString &defaultName)
{
    if (!root.IsMap())
        return failure(QStringLiteral("the document must be a mapping with the key job_data, "
                                      "got %1")
                           .arg(yamlTypeName(root)));

    Collector collector;
    YamlMapReader top(root, QString(), collector);
    const std::optional<YAML::Node> jobData =
        top.mapping(QLatin1String("job_data"), Presence::Required);
    top.reportUnknownFields();
    if (!jobData)
        return finish(JobSpec(), collector.errors);

    const QString dataPath = QStringLiteral("job_data");
    const QString jobNamePath = QStringLiteral("job_data.job_name");
    YamlMapReader data(*jobData, dataPath, collector);
    JobSpec spec;
    spec.kind = JobSpec::Kind::Ddl;

    bool nameDefaulted = false;
    if (const std::optional<QString> name =
            data.string(QLatin1String("job_name"), Presence::Optional)) {
        spec.jobName = *name;
    } else if (!collector.bad.contains(jobNamePath)) {
        if (defaultName.isEmpty()) {
            collector.add(jobNamePath, QStringLiteral("is required (there is no default name)"));
        } else {
            spec.jobName = defaultName;
            nameDefaulted = true;
        }
    }

    if (const std::optional<YAML::Node> dataset =
            data.mapping(QLatin1String("dataset"), Presence::Required)) {
        YamlMapReader datasetReader(*dataset, QStringLiteral("job_data.dataset"), collector);
        if (const std::optional<QString> location =
                datasetReader.string(QLatin1String("dataset_location"), Presence::Required)) {
            if (location->isEmpty())
                collector.add(QStringLiteral("job_data.dataset.dataset_location"),
                              QStringLiteral("must not be empty"));
            spec.datasetLocation = *location;
        }
        datasetReader.reportUnknownFields();
    }

    TaskRole worker;
    worker.name = QStringLiteral("worker");
    worker.taskNumber =
        data.integer(QLatin1String("worker_required"), Presence::Required).value_or(1);
    worker.gpuNumber =
        data.integer(QLatin1String("gpu_per_worker"), Presence::Optional).value_or(0);
    worker.cpuNumber =
        data.integer(QLatin1String("cpu_per_worker"), Presence::Optional).value_or(1);
    worker.memoryMB =
        data.integer(QLatin1String("memory_mb_per_worker"), Presence::Optional).value_or(2048);
    spec.retryCount = data.integer(QLatin1String("retry_count"), Presence::Optional).value_or(0);
    // The image the tasks run in on workers with a container runtime (docs/images.md).
    spec.image = data.string(QLatin1String("image"), Presence::Optional).value_or(QString());
    // Only workers this trusted (docs/trust.md).
    spec.minWorkerTrust =
        data.integer(QLatin1String("min_worker_trust"), Presence::Optional).value_or(0);
    data.reportUnknownFields();
    spec.taskRoles.append(worker);

    // The validator speaks wire names; translate both ways.
    QSet<QString> skip;
    for (const FieldAlias &alias : YamlAliases) {
        if (collector.bad.contains(QLatin1String(alias.yaml)))
            skip.insert(QLatin1String(alias.wire));
    }
    QList<SpecError> errors = collector.errors;
    const QList<SpecError> ruleErrors = JobSpecValidator::validate(spec, skip);
    for (SpecError error : ruleErrors) {
        for (const FieldAlias &alias : YamlAliases) {
            if (error.field == QLatin1String(alias.wire)) {
                error.field = QLatin1String(alias.yaml);
                break;
            }
        }
        if (nameDefaulted && error.field == jobNamePath)
            error.message += QStringLiteral(" (the default name; set job_data.job_name)");
        errors.append(error);
    }
    return finish(spec, errors);
}

// ---- files ------------------------------------------------------------------------------------

enum class FileFormat { PaiJson, TaskYaml, Unknown };

FileFormat formatOf(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("json"))
        return FileFormat::PaiJson;
    if (suffix == QLatin1String("yaml") || suffix == QLatin1String("yml"))
        return FileFormat::TaskYaml;
    return FileFormat::Unknown;
}

QString unknownFormatMessage(const QString &path)
{
    return QStringLiteral("cannot tell the format of %1: name it *.json for an OpenPAI job, "
                          "*.yaml / *.yml for an OpenPAI v2 job or a DDL task.yaml")
        .arg(path);
}

// The file's bytes, or a message saying why they cannot be had.
Result<QByteArray> readSpecFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error::make(ErrorCode::IoError,
                           QStringLiteral("cannot read %1: %2").arg(path, file.errorString()),
                           path);
    if (file.size() > MaxFileSize)
        return Error::make(ErrorCode::IoError,
                           QStringLiteral("%1 is larger than %2 bytes; a job spec is a small "
                                          "text file")
                               .arg(path)
                               .arg(MaxFileSize),
                           path);
    const QByteArray data = file.readAll();
    if (file.error() != QFileDevice::NoError)
        return Error::make(ErrorCode::IoError,
                           QStringLiteral("cannot read %1: %2").arg(path, file.errorString()),
                           path);
    return data;
}

} // namespace

Result<JobSpec> SpecParseResult::toResult() const
{
    if (ok())
        return *spec;
    if (errors.isEmpty())
        return specErrorsToError({SpecError{QString(), QStringLiteral("no job spec")}});
    return specErrorsToError(errors);
}

SpecParseResult JobSpecParser::parsePaiJsonDetailed(const QByteArray &json)
{
    const JsonComments::Stripped stripped = JsonComments::strip(json);
    if (stripped.error)
        return failure(*stripped.error);
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(stripped.json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return failure(jsonSyntaxError(json, parseError));
    if (!document.isObject())
        return failure(
            QStringLiteral("the document must be a JSON object, got %1")
                .arg(document.isArray() ? QStringLiteral("array") : QStringLiteral("nothing")));
    return parsePaiObject(document.object(), false);
}

Result<JobSpec> JobSpecParser::parsePaiJson(const QByteArray &json)
{
    return parsePaiJsonDetailed(json).toResult();
}

SpecParseResult JobSpecParser::parseTaskYamlDetailed(const QByteArray &yaml,
                                                     const QString &defaultName)
{
    SpecParseResult failed;
    const std::optional<YAML::Node> root = loadYaml(yaml, failed);
    if (!root)
        return failed;
    if (PaiProtocolV2::isV2(*root))
        return failure(QStringLiteral("this is an OpenPAI protocol v2 job (it has "
                                      "protocolVersion), not a DDL task.yaml: submit it with "
                                      "--job_config=FILE"));
    return readTaskYaml(*root, defaultName);
}

SpecParseResult JobSpecParser::parsePaiV2Detailed(const QByteArray &yaml)
{
    SpecParseResult failed;
    const std::optional<YAML::Node> root = loadYaml(yaml, failed);
    if (!root)
        return failed;
    return readPaiV2(*root);
}

bool JobSpecParser::isPaiConfig(const QByteArray &text)
{
    if (firstSignificant(text) == '{')
        return true;
    SpecParseResult failed;
    const std::optional<YAML::Node> root = loadYaml(text, failed);
    return root && PaiProtocolV2::isV2(*root);
}

SpecParseResult JobSpecParser::parsePaiConfigDetailed(const QByteArray &text)
{
    if (firstSignificant(text) == '{') {
        // v2 may be written as JSON too; JSON without comments is YAML.
        const JsonComments::Stripped stripped = JsonComments::strip(text);
        const QJsonDocument document = QJsonDocument::fromJson(stripped.json);
        if (document.isObject() && document.object().contains(QLatin1String("protocolVersion")))
            return parsePaiV2Detailed(stripped.json);
        return parsePaiJsonDetailed(text);
    }
    SpecParseResult failed;
    const std::optional<YAML::Node> root = loadYaml(text, failed);
    if (!root)
        return failed;
    if (!PaiProtocolV2::isV2(*root))
        return failure(QStringLiteral("not an OpenPAI job: expected a v1 job JSON object "
                                      "({\"jobName\": ...}) or a protocol v2 YAML with "
                                      "protocolVersion: 2"));
    return readPaiV2(*root);
}

Result<JobSpec> JobSpecParser::parsePaiConfig(const QByteArray &text)
{
    return parsePaiConfigDetailed(text).toResult();
}

Result<JobSpec> JobSpecParser::parseTaskYaml(const QByteArray &yaml, const QString &defaultName)
{
    return parseTaskYamlDetailed(yaml, defaultName).toResult();
}

SpecParseResult JobSpecParser::parseWireDetailed(const QJsonObject &object)
{
    return parsePaiObject(object, true);
}

Result<JobSpec> JobSpecParser::parseWire(const QJsonObject &object)
{
    return parseWireDetailed(object).toResult();
}

SpecParseResult JobSpecParser::parseFileDetailed(const QString &path, const QString &defaultName)
{
    const FileFormat format = formatOf(path);
    if (format == FileFormat::Unknown)
        return failure(unknownFormatMessage(path));
    const Result<QByteArray> data = readSpecFile(path);
    if (!data)
        return failure(data.error().message);
    if (format == FileFormat::PaiJson || isPaiConfig(*data))
        return parsePaiConfigDetailed(*data);
    return parseTaskYamlDetailed(*data, defaultName);
}

Result<JobSpec> JobSpecParser::parseFile(const QString &path, const QString &defaultName)
{
    const FileFormat format = formatOf(path);
    if (format == FileFormat::Unknown)
        return specErrorsToError({SpecError{QString(), unknownFormatMessage(path)}});
    const Result<QByteArray> data = readSpecFile(path);
    if (!data)
        return data.error();
    if (format == FileFormat::PaiJson || isPaiConfig(*data))
        return parsePaiConfig(*data);
    return parseTaskYaml(*data, defaultName);
}

} // namespace ddl
