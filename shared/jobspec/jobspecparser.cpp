#include "jobspecparser.h"

#include "jobspecvalidator.h"

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

enum class Presence { Required, Optional };

constexpr qint64 MaxFileSize = 4 * 1024 * 1024;
constexpr int IntMin = std::numeric_limits<int>::min();
constexpr int IntMax = std::numeric_limits<int>::max();

QString childPath(const QString &parent, const QString &key)
{
    if (parent.isEmpty())
        return key;
    return parent + u'.' + key;
}

QString elementPath(const QString &parent, qsizetype index)
{
    return parent + u'[' + QString::number(index) + u']';
}

QString quoted(const QString &text)
{
    return u'"' + text + u'"';
}

QString outOfIntRange(const QString &got)
{
    return QStringLiteral("must be an integer between %1 and %2, got %3")
        .arg(IntMin)
        .arg(IntMax)
        .arg(got);
}

// The errors found while reading, and the paths of the fields they concern, so that the
// validator does not report those fields a second time.
struct Collector
{
    QList<SpecError> errors;
    QSet<QString> bad;

    void add(const QString &path, const QString &message)
    {
        errors.append(SpecError{path, message});
        bad.insert(path);
    }
};

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
    const qsizetype offset = qBound(qsizetype(0), qsizetype(error.offset), data.size());
    const QByteArray before = data.left(offset);
    const qsizetype line = before.count('\n') + 1;
    const qsizetype lineStart = before.lastIndexOf('\n') + 1;
    const qsizetype column = QString::fromUtf8(before.mid(lineStart)).size() + 1;
    return QStringLiteral("syntax error at line %1, column %2: %3")
        .arg(line)
        .arg(column)
        .arg(error.errorString());
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
            roleReader.reportUnknownFields();
            spec.taskRoles.append(role);
        }
    }

    spec.killAllOnCompletedTaskNumber =
        reader.integer(QLatin1String("killAllOnCompletedTaskNumber"), Presence::Optional)
            .value_or(0);
    spec.retryCount = reader.integer(QLatin1String("retryCount"), Presence::Optional).value_or(0);
    reader.reportUnknownFields();
    return spec;
}

SpecParseResult parsePaiObject(const QJsonObject &root, bool wire)
{
    Collector collector;
    const JobSpec spec = readPaiObject(root, wire, collector);
    QList<SpecError> errors = collector.errors;
    errors += JobSpecValidator::validate(spec, collector.bad);
    return finish(spec, errors);
}

// ---- YAML -------------------------------------------------------------------------------------

bool isQuotedString(const YAML::Node &node)
{
    // yaml-cpp gives quoted scalars the non-specific tag "!", plain ones "?".
    return node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str";
}

QString yamlTypeName(const YAML::Node &node)
{
    switch (node.Type()) {
    case YAML::NodeType::Undefined:
        return QStringLiteral("nothing");
    case YAML::NodeType::Null:
        return QStringLiteral("null");
    case YAML::NodeType::Sequence:
        return QStringLiteral("sequence");
    case YAML::NodeType::Map:
        return QStringLiteral("mapping");
    case YAML::NodeType::Scalar:
        break;
    }
    if (isQuotedString(node))
        return QStringLiteral("string");
    bool boolean = false;
    if (YAML::convert<bool>::decode(node, boolean))
        return QStringLiteral("boolean");
    long long integer = 0;
    if (YAML::convert<long long>::decode(node, integer))
        return QStringLiteral("integer");
    double number = 0;
    if (YAML::convert<double>::decode(node, number))
        return QStringLiteral("number");
    return QStringLiteral("string");
}

// Reads the entries of one YAML mapping by key; reports duplicate keys at once and keys that
// nobody asked for in reportUnknownFields(). A null value counts as absent for optional keys.
class YamlMapReader
{
public:
    YamlMapReader(const YAML::Node &map, const QString &path, Collector &collector)
        : m_path(path)
        , m_collector(collector)
    {
        QSet<QString> seen;
        for (auto it = map.begin(); it != map.end(); ++it) {
            if (!it->first.IsScalar()) {
                m_collector.add(m_path,
                                QStringLiteral("keys must be plain names, got a ") +
                                    yamlTypeName(it->first));
                continue;
            }
            const QString key = QString::fromStdString(it->first.Scalar());
            if (seen.contains(key)) {
                m_collector.add(childPath(m_path, key), QStringLiteral("duplicate key"));
                continue;
            }
            seen.insert(key);
            m_entries.append({key, it->second});
        }
    }

    std::optional<QString> string(QLatin1String key, Presence presence)
    {
        const std::optional<YAML::Node> node = take(key, presence);
        if (!node)
            return std::nullopt;
        if (!node->IsScalar()) {
            wrongType(key, QStringLiteral("a string"), yamlTypeName(*node));
            return std::nullopt;
        }
        return QString::fromStdString(node->Scalar());
    }

    std::optional<int> integer(QLatin1String key, Presence presence)
    {
        const std::optional<YAML::Node> node = take(key, presence);
        if (!node)
            return std::nullopt;
        const QString type = yamlTypeName(*node);
        if (type == QLatin1String("number")) {
            wrongType(key, QStringLiteral("an integer"), QString::fromStdString(node->Scalar()));
            return std::nullopt;
        }
        long long value = 0;
        if (type != QLatin1String("integer") || !YAML::convert<long long>::decode(*node, value)) {
            wrongType(key, QStringLiteral("an integer"), type);
            return std::nullopt;
        }
        if (value < IntMin || value > IntMax) {
            m_collector.add(childPath(m_path, key), outOfIntRange(QString::number(value)));
            return std::nullopt;
        }
        return int(value);
    }

    std::optional<YAML::Node> mapping(QLatin1String key, Presence presence)
    {
        const std::optional<YAML::Node> node = take(key, presence);
        if (!node)
            return std::nullopt;
        if (!node->IsMap()) {
            wrongType(key, QStringLiteral("a mapping"), yamlTypeName(*node));
            return std::nullopt;
        }
        return node;
    }

    void reportUnknownFields()
    {
        const QString known = m_known.join(QLatin1String(", "));
        for (const auto &[key, node] : std::as_const(m_entries)) {
            if (!m_known.contains(key))
                m_collector.add(childPath(m_path, key),
                                QStringLiteral("unknown field; known fields are: ") + known);
        }
    }

private:
    std::optional<YAML::Node> take(QLatin1String key, Presence presence)
    {
        m_known.append(key);
        for (const auto &[name, node] : std::as_const(m_entries)) {
            if (name != key)
                continue;
            if (node.IsNull() && presence == Presence::Optional)
                return std::nullopt;
            return node;
        }
        if (presence == Presence::Required)
            m_collector.add(childPath(m_path, key), QStringLiteral("is required"));
        return std::nullopt;
    }

    void wrongType(QLatin1String key, const QString &expected, const QString &got)
    {
        m_collector.add(childPath(m_path, key),
                        QStringLiteral("must be %1, got %2").arg(expected, got));
    }

    QString m_path;
    Collector &m_collector;
    QList<std::pair<QString, YAML::Node>> m_entries;
    QStringList m_known;
};

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
    return QStringLiteral("cannot tell the format of %1: name it *.json for an OpenPAI job or "
                          "*.yaml / *.yml for a DDL task.yaml")
        .arg(path);
}

// The file's bytes, or a message saying why they cannot be had.
Result<QByteArray> readSpecFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error::make(QStringLiteral("io_error"),
                           QStringLiteral("cannot read %1: %2").arg(path, file.errorString()),
                           path);
    if (file.size() > MaxFileSize)
        return Error::make(QStringLiteral("io_error"),
                           QStringLiteral("%1 is larger than %2 bytes; a job spec is a small "
                                          "text file")
                               .arg(path)
                               .arg(MaxFileSize),
                           path);
    const QByteArray data = file.readAll();
    if (file.error() != QFileDevice::NoError)
        return Error::make(QStringLiteral("io_error"),
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
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
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
    // yaml-cpp reports everything by exceptions; none leaves this function.
    try {
        const YAML::Node root = YAML::Load(yaml.toStdString());
        return readTaskYaml(root, defaultName);
    } catch (const YAML::Exception &e) {
        if (e.mark.is_null())
            return failure(QStringLiteral("syntax error: %1").arg(QString::fromStdString(e.msg)));
        return failure(QStringLiteral("syntax error at line %1, column %2: %3")
                           .arg(e.mark.line + 1)
                           .arg(e.mark.column + 1)
                           .arg(QString::fromStdString(e.msg)));
    } catch (const std::exception &e) {
        return failure(QStringLiteral("cannot read the YAML document: %1")
                           .arg(QString::fromLocal8Bit(e.what())));
    }
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
    if (format == FileFormat::PaiJson)
        return parsePaiJsonDetailed(*data);
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
    if (format == FileFormat::PaiJson)
        return parsePaiJson(*data);
    return parseTaskYaml(*data, defaultName);
}

} // namespace ddl
