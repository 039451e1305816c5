#include "paiprotocolv2.h"

#include "specreaders.h"

#include <QHash>
#include <QJsonArray>
#include <QRegularExpression>

namespace ddl {

namespace {

using namespace specread;

const QString NoEffect = QStringLiteral(": accepted, but has no effect here: ");

// A prerequisite by name: its type and the whole node (for `<% $data.uri[0] %>`).
struct Prerequisite
{
    QString type;
    YAML::Node node;
};

// At most this many values in extras: YAML aliases could otherwise make a small text expand to
// an enormous one (a "billion laughs"), and the server reads these documents too.
constexpr int MaxExtrasValues = 10000;

// A YAML value as JSON (for extras): scalars keep the type they are written with. budget counts
// down the values converted; once spent, the rest is left out and budget is negative.
QJsonValue yamlToJson(const YAML::Node &node, int &budget)
{
    if (--budget < 0)
        return QJsonValue::Null;
    switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
        return QJsonValue::Null;
    case YAML::NodeType::Sequence: {
        QJsonArray array;
        for (const YAML::Node &item : node)
            array.append(yamlToJson(item, budget));
        return array;
    }
    case YAML::NodeType::Map: {
        QJsonObject object;
        for (auto it = node.begin(); it != node.end(); ++it) {
            if (it->first.IsScalar())
                object.insert(QString::fromStdString(it->first.Scalar()),
                              yamlToJson(it->second, budget));
        }
        return object;
    }
    case YAML::NodeType::Scalar:
        break;
    }
    const QString type = yamlTypeName(node);
    if (type == QLatin1String("boolean"))
        return node.as<bool>();
    if (type == QLatin1String("integer") || type == QLatin1String("number"))
        return node.as<double>();
    return QString::fromStdString(node.Scalar());
}

// An integer that may be null: absent gives fallback, null gives JSON null.
QJsonValue nullableInteger(YamlMapReader &reader,
                           QLatin1String key,
                           const QJsonValue &fallback,
                           const QString &path,
                           Collector &collector)
{
    const bool present = reader.keys().contains(key);
    const std::optional<YAML::Node> node = reader.anyValue(key, Presence::Optional);
    if (!present)
        return fallback;
    if (!node)
        return QJsonValue::Null;
    long long value = 0;
    if (yamlTypeName(*node) != QLatin1String("integer") ||
        !YAML::convert<long long>::decode(*node, value) || value < IntMin || value > IntMax) {
        collector.add(childPath(path, key),
                      QStringLiteral("must be an integer or null, got ") + yamlTypeName(*node));
        return fallback;
    }
    return int(value);
}

// Substitutes `<% $parameters.x %>`, `<% $data.uri[0] %>` and the like.
class Template
{
public:
    QHash<QString, YAML::Node> roots; // "parameters", "secrets", "data", "output", "script"
    bool usedSecrets = false;

    QString apply(const QString &text, const QString &path, Collector &collector)
    {
        static const QRegularExpression reference(
            QStringLiteral(R"(<%\s*\$([A-Za-z_]\w*)((?:\.[A-Za-z0-9_-]+|\[\d+\])*)\s*%>)"));
        static const QRegularExpression segment(QStringLiteral(R"(\.([A-Za-z0-9_-]+)|\[(\d+)\])"));
        QString result;
        qsizetype last = 0;
        for (auto it = reference.globalMatch(text); it.hasNext();) {
            const QRegularExpressionMatch match = it.next();
            result += text.mid(last, match.capturedStart() - last);
            last = match.capturedEnd();
            const QString root = match.captured(1);
            const auto found = roots.constFind(root);
            bool ok = found != roots.cend();
            // Looked up through const nodes: a missing key must not be added to the document.
            YAML::Node node = ok ? *found : YAML::Node();
            for (auto parts = segment.globalMatch(match.captured(2)); ok && parts.hasNext();) {
                const QRegularExpressionMatch part = parts.next();
                const YAML::Node &current = node;
                if (!part.captured(1).isEmpty() && current.IsMap()) {
                    const YAML::Node child = current[part.captured(1).toStdString()];
                    ok = child.IsDefined();
                    if (ok)
                        node.reset(child);
                } else if (part.captured(1).isEmpty() && current.IsSequence()) {
                    const std::size_t index = part.captured(2).toULongLong();
                    ok = index < current.size();
                    if (ok)
                        node.reset(current[index]);
                } else {
                    ok = false;
                }
            }
            if (!ok || !node.IsScalar()) {
                collector.add(
                    path,
                    QStringLiteral("%1 names nothing this job defines; check the name "
                                   "under %2")
                        .arg(match.captured(0),
                             root == QLatin1String("parameters") || root == QLatin1String("secrets")
                                 ? root
                                 : QStringLiteral("prerequisites")));
                continue;
            }
            usedSecrets = usedSecrets || root == QLatin1String("secrets");
            result += QString::fromStdString(node.Scalar());
        }
        return result + text.mid(last);
    }
};

// A list of command lines (commands, preCommands, postCommands), substituted.
QStringList
readCommands(const YAML::Node &list, const QString &path, Template &values, Collector &collector)
{
    QStringList commands;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const QString itemPath = elementPath(path, qsizetype(i));
        if (!list[i].IsScalar()) {
            collector.add(itemPath,
                          QStringLiteral("must be a string (one command), got ") +
                              yamlTypeName(list[i]));
            continue;
        }
        commands << values.apply(QString::fromStdString(list[i].Scalar()), itemPath, collector)
                        .trimmed();
    }
    return commands;
}

class Converter
{
public:
    PaiProtocolV2::Conversion run(const YAML::Node &root);

private:
    void readPrerequisites(const YAML::Node &list);
    void readDeployment(YamlMapReader &top, const std::optional<YAML::Node> &defaults);
    QJsonObject readRole(const QString &name, const YAML::Node &node);
    // The prerequisite of this type named by key of a task role, or nullopt with an error.
    std::optional<YAML::Node> reference(YamlMapReader &role,
                                        QLatin1String key,
                                        const QString &type,
                                        const QString &path,
                                        Presence presence);
    void note(const QString &field, const QString &why) { m_out.notes << field + NoEffect + why; }

    PaiProtocolV2::Conversion m_out;
    Collector m_collector;
    QHash<QString, Prerequisite> m_prerequisites;
    YAML::Node m_parameters;
    YAML::Node m_secrets;
    YAML::Node m_deployment; // the taskRoles map of the active deployment, if any
    QString m_deploymentPath;
    QString m_image;
};

void Converter::readPrerequisites(const YAML::Node &list)
{
    static const QStringList types{QStringLiteral("data"),
                                   QStringLiteral("script"),
                                   QStringLiteral("dockerimage"),
                                   QStringLiteral("output")};
    for (std::size_t i = 0; i < list.size(); ++i) {
        const QString path = elementPath(QStringLiteral("prerequisites"), qsizetype(i));
        if (!list[i].IsMap()) {
            m_collector.add(path,
                            QStringLiteral("must be a mapping, got ") + yamlTypeName(list[i]));
            continue;
        }
        YamlMapReader reader(list[i], path, m_collector);
        reader.anyValue(QLatin1String("protocolVersion"), Presence::Optional);
        const std::optional<QString> name =
            reader.string(QLatin1String("name"), Presence::Required);
        const std::optional<QString> type =
            reader.string(QLatin1String("type"), Presence::Required);
        for (const char *key : {"version", "contributor", "description"})
            reader.anyValue(QLatin1String(key), Presence::Optional);
        if (reader.mapping(QLatin1String("auth"), Presence::Optional))
            note(childPath(path, QStringLiteral("auth")),
                 QStringLiteral("no container registry is contacted"));
        const std::optional<YAML::Node> uri =
            reader.anyValue(QLatin1String("uri"), Presence::Required);
        reader.reportUnknownFields();
        if (type && !types.contains(*type))
            m_collector.add(childPath(path, QStringLiteral("type")),
                            QStringLiteral("must be data, script, dockerimage or output, got %1")
                                .arg(quoted(*type)));
        if (uri && !uri->IsScalar() && !(type == QLatin1String("data") && uri->IsSequence()))
            m_collector.add(childPath(path, QStringLiteral("uri")),
                            QStringLiteral("must be a string (a list only for data), got ") +
                                yamlTypeName(*uri));
        if (name && type)
            m_prerequisites.insert(*name, Prerequisite{*type, list[i]});
    }
}

void Converter::readDeployment(YamlMapReader &top, const std::optional<YAML::Node> &defaults)
{
    const std::optional<YAML::Node> deployments =
        top.sequence(QLatin1String("deployments"), Presence::Optional);
    QString active;
    if (defaults) {
        YamlMapReader reader(*defaults, QStringLiteral("defaults"), m_collector);
        if (const std::optional<QString> cluster =
                reader.string(QLatin1String("virtualCluster"), Presence::Optional))
            m_out.job.insert(QStringLiteral("virtualCluster"), *cluster);
        active = reader.string(QLatin1String("deployment"), Presence::Optional).value_or(QString());
        reader.reportUnknownFields();
    }
    QStringList names;
    for (std::size_t i = 0; deployments && i < deployments->size(); ++i) {
        const YAML::Node item = (*deployments)[i];
        const QString path = elementPath(QStringLiteral("deployments"), qsizetype(i));
        if (!item.IsMap()) {
            m_collector.add(path, QStringLiteral("must be a mapping, got ") + yamlTypeName(item));
            continue;
        }
        YamlMapReader reader(item, path, m_collector);
        const QString name =
            reader.string(QLatin1String("name"), Presence::Required).value_or(QString());
        reader.anyValue(QLatin1String("version"), Presence::Optional);
        const std::optional<YAML::Node> roles =
            reader.mapping(QLatin1String("taskRoles"), Presence::Optional);
        reader.reportUnknownFields();
        names << name;
        if (!name.isEmpty() && name == active && roles) {
            m_deployment = *roles;
            m_deploymentPath = childPath(path, QStringLiteral("taskRoles"));
        }
    }
    if (!active.isEmpty() && m_deploymentPath.isEmpty() && !names.contains(active))
        m_collector.add(
            QStringLiteral("defaults.deployment"),
            QStringLiteral("names no deployment; deployments has: %1")
                .arg(names.isEmpty() ? QStringLiteral("none") : names.join(QLatin1String(", "))));
    if (active.isEmpty() && !names.isEmpty())
        note(QStringLiteral("deployments"),
             QStringLiteral("none is active; name one in defaults.deployment to run its "
                            "preCommands and postCommands"));
}

std::optional<YAML::Node> Converter::reference(YamlMapReader &role,
                                               QLatin1String key,
                                               const QString &type,
                                               const QString &path,
                                               Presence presence)
{
    const std::optional<QString> name = role.string(key, presence);
    if (!name)
        return std::nullopt;
    const auto found = m_prerequisites.constFind(*name);
    if (found == m_prerequisites.cend() || found->type != type) {
        m_collector.add(childPath(path, key),
                        QStringLiteral("names no prerequisite of type %1; add one under "
                                       "prerequisites (name: %2, type: %1, uri: ...)")
                            .arg(type, *name));
        return std::nullopt;
    }
    return found->node;
}

QJsonObject Converter::readRole(const QString &name, const YAML::Node &node)
{
    const QString path = childPath(QStringLiteral("taskRoles"), name);
    QJsonObject role{{QStringLiteral("name"), name}};
    QStringList labels;
    if (!node.IsMap()) {
        m_collector.add(path, QStringLiteral("must be a mapping, got ") + yamlTypeName(node));
        m_out.portLabels << labels;
        return role;
    }
    YamlMapReader reader(node, path, m_collector);
    role.insert(QStringLiteral("taskNumber"),
                reader.integer(QLatin1String("instances"), Presence::Optional).value_or(1));
    if (const std::optional<YAML::Node> completion =
            reader.mapping(QLatin1String("completion"), Presence::Optional)) {
        const QString completionPath = childPath(path, QStringLiteral("completion"));
        YamlMapReader policy(*completion, completionPath, m_collector);
        const QJsonValue failed = nullableInteger(
            policy, QLatin1String("minFailedInstances"), 1, completionPath, m_collector);
        const QJsonValue succeeded = nullableInteger(policy,
                                                     QLatin1String("minSucceededInstances"),
                                                     QJsonValue::Null,
                                                     completionPath,
                                                     m_collector);
        policy.reportUnknownFields();
        role.insert(QStringLiteral("minFailedTaskCount"), failed);
        if (!succeeded.isNull())
            role.insert(QStringLiteral("minSucceededTaskCount"), succeeded);
    }
    if (reader.integer(QLatin1String("taskRetryCount"), Presence::Optional).value_or(0) != 0)
        note(childPath(path, QStringLiteral("taskRetryCount")),
             QStringLiteral("a failed task ends its attempt; the whole job is retried "
                            "(jobRetryCount)"));

    Template values;
    values.roots.insert(QStringLiteral("parameters"), m_parameters);
    values.roots.insert(QStringLiteral("secrets"), m_secrets);
    if (const std::optional<YAML::Node> image = reference(reader,
                                                          QLatin1String("dockerImage"),
                                                          QStringLiteral("dockerimage"),
                                                          path,
                                                          Presence::Required)) {
        const YAML::Node uriNode = (*image)["uri"];
        const QString uri = uriNode.IsDefined() && uriNode.IsScalar()
                                ? QString::fromStdString(uriNode.Scalar())
                                : QString();
        if (m_image.isEmpty())
            m_image = uri;
        else if (uri != m_image)
            note(
                childPath(path, QStringLiteral("dockerImage")),
                QStringLiteral("a job has one image here: %1, the first task role's").arg(m_image));
    }
    for (const char *kind : {"data", "output", "script"}) {
        const QString type = QLatin1String(kind);
        if (const std::optional<YAML::Node> target =
                reference(reader, QLatin1String(kind), type, path, Presence::Optional)) {
            values.roots.insert(type, *target);
            note(childPath(path, type),
                 QStringLiteral("nothing is fetched; only its <% $%1... %> references are "
                                "substituted")
                     .arg(type));
        }
    }
    if (const std::optional<YAML::Node> options =
            reader.mapping(QLatin1String("extraContainerOptions"), Presence::Optional)) {
        const QString optionsPath = childPath(path, QStringLiteral("extraContainerOptions"));
        YamlMapReader extra(*options, optionsPath, m_collector);
        if (const std::optional<int> shm =
                extra.integer(QLatin1String("shmMB"), Presence::Optional))
            role.insert(QStringLiteral("shmMB"), *shm);
        if (extra.anyValue(QLatin1String("infiniband"), Presence::Optional))
            note(childPath(optionsPath, QStringLiteral("infiniband")),
                 QStringLiteral("tasks see no InfiniBand devices"));
        extra.reportUnknownFields();
    }
    if (const std::optional<YAML::Node> resources =
            reader.mapping(QLatin1String("resourcePerInstance"), Presence::Required)) {
        const QString resourcePath = childPath(path, QStringLiteral("resourcePerInstance"));
        YamlMapReader resource(*resources, resourcePath, m_collector);
        role.insert(QStringLiteral("cpuNumber"),
                    resource.integer(QLatin1String("cpu"), Presence::Required).value_or(1));
        role.insert(QStringLiteral("memoryMB"),
                    resource.integer(QLatin1String("memoryMB"), Presence::Required).value_or(100));
        role.insert(QStringLiteral("gpuNumber"),
                    resource.integer(QLatin1String("gpu"), Presence::Required).value_or(0));
        if (const std::optional<YAML::Node> ports =
                resource.mapping(QLatin1String("ports"), Presence::Optional)) {
            YamlMapReader portReader(
                *ports, childPath(resourcePath, QStringLiteral("ports")), m_collector);
            QJsonArray portList;
            for (const QString &label : portReader.keys()) {
                const QByteArray key = label.toUtf8();
                const int count =
                    portReader.integer(QLatin1String(key), Presence::Required).value_or(1);
                portList.append(QJsonObject{{QStringLiteral("label"), label},
                                            {QStringLiteral("beginAt"), 0},
                                            {QStringLiteral("portNumber"), count}});
                labels << label;
            }
            if (!portList.isEmpty())
                role.insert(QStringLiteral("portList"), portList);
        }
        resource.reportUnknownFields();
    }

    QStringList script;
    // Looked up through const nodes, checking IsDefined() first: yaml-cpp throws on any other
    // question to a node that is not there.
    const YAML::Node &deployments = m_deployment;
    const YAML::Node deployment =
        deployments.IsMap() ? deployments[name.toStdString()] : YAML::Node();
    const QString deploymentPath = childPath(m_deploymentPath, name);
    const auto deploymentCommands = [&](const char *key) {
        const YAML::Node list =
            deployment.IsDefined() && deployment.IsMap() ? deployment[key] : YAML::Node();
        if (list.IsDefined() && list.IsSequence())
            script << readCommands(
                list, childPath(deploymentPath, QLatin1String(key)), values, m_collector);
    };
    deploymentCommands("preCommands");
    if (const std::optional<YAML::Node> commands =
            reader.sequence(QLatin1String("commands"), Presence::Required))
        script << readCommands(
            *commands, childPath(path, QStringLiteral("commands")), values, m_collector);
    deploymentCommands("postCommands");
    script.removeAll(QString());
    role.insert(QStringLiteral("command"), script.join(u'\n'));
    reader.reportUnknownFields();
    if (values.usedSecrets)
        m_out.notes << path + QStringLiteral(": its commands hold values of secrets; they are "
                                             "stored with the job, which only you can read");
    m_out.portLabels << labels;
    return role;
}

PaiProtocolV2::Conversion Converter::run(const YAML::Node &root)
{
    YamlMapReader top(root, QString(), m_collector);
    if (const std::optional<YAML::Node> version =
            top.anyValue(QLatin1String("protocolVersion"), Presence::Required)) {
        const QString text = version->IsScalar() ? QString::fromStdString(version->Scalar())
                                                 : yamlTypeName(*version);
        if (text != QLatin1String("2"))
            m_collector.add(QStringLiteral("protocolVersion"),
                            QStringLiteral("must be 2, got %1; this reads OpenPAI's protocol v2 "
                                           "(a v1 job is JSON)")
                                .arg(text));
    }
    m_out.job.insert(QStringLiteral("jobName"),
                     top.string(QLatin1String("name"), Presence::Required).value_or(QString()));
    if (const std::optional<QString> type = top.string(QLatin1String("type"), Presence::Required);
        type && *type != QLatin1String("job"))
        m_collector.add(QStringLiteral("type"),
                        QStringLiteral("must be \"job\", got %1: only jobs can be submitted")
                            .arg(quoted(*type)));
    for (const char *key : {"version", "contributor", "description"})
        top.anyValue(QLatin1String(key), Presence::Optional);
    if (const std::optional<YAML::Node> list =
            top.sequence(QLatin1String("prerequisites"), Presence::Optional))
        readPrerequisites(*list);
    m_parameters =
        top.mapping(QLatin1String("parameters"), Presence::Optional).value_or(YAML::Node());
    m_secrets = top.mapping(QLatin1String("secrets"), Presence::Optional).value_or(YAML::Node());
    m_out.job.insert(QStringLiteral("retryCount"),
                     top.integer(QLatin1String("jobRetryCount"), Presence::Optional).value_or(0));
    const std::optional<YAML::Node> roles =
        top.mapping(QLatin1String("taskRoles"), Presence::Required);
    const std::optional<YAML::Node> defaults =
        top.mapping(QLatin1String("defaults"), Presence::Optional);
    readDeployment(top, defaults);
    if (const std::optional<YAML::Node> extras =
            top.mapping(QLatin1String("extras"), Presence::Optional)) {
        int budget = MaxExtrasValues;
        const QJsonValue converted = yamlToJson(*extras, budget);
        if (budget < 0)
            m_collector.add(QStringLiteral("extras"),
                            QStringLiteral("holds more than %1 values; keep extras small")
                                .arg(MaxExtrasValues));
        m_out.job.insert(QStringLiteral("extras"), converted);
    }
    top.reportUnknownFields();

    QJsonArray list;
    if (roles) {
        YamlMapReader roleReader(*roles, QStringLiteral("taskRoles"), m_collector);
        for (const QString &name : roleReader.keys()) {
            const QByteArray key = name.toUtf8();
            const std::optional<YAML::Node> node =
                roleReader.anyValue(QLatin1String(key), Presence::Required);
            m_out.roleNames << name;
            list.append(readRole(name, node.value_or(YAML::Node())));
        }
    }
    m_out.job.insert(QStringLiteral("taskRoles"), list);
    m_out.job.insert(QStringLiteral("image"), m_image);
    m_out.errors = m_collector.errors;
    return m_out;
}

} // namespace

bool PaiProtocolV2::isV2(const YAML::Node &root)
{
    return root.IsMap() && root["protocolVersion"].IsDefined();
}

PaiProtocolV2::Conversion PaiProtocolV2::convert(const YAML::Node &root)
{
    if (!root.IsMap()) {
        Conversion failed;
        failed.errors << SpecError{QString(),
                                   QStringLiteral("the document must be a mapping with "
                                                  "protocolVersion: 2, got ") +
                                       yamlTypeName(root)};
        return failed;
    }
    return Converter().run(root);
}

QString PaiProtocolV2::v2Path(const Conversion &conversion, const QString &v1Path)
{
    static const QHash<QString, QString> top{
        {QStringLiteral("jobName"), QStringLiteral("name")},
        {QStringLiteral("retryCount"), QStringLiteral("jobRetryCount")},
        {QStringLiteral("virtualCluster"), QStringLiteral("defaults.virtualCluster")}};
    static const QHash<QString, QString> roleFields{
        {QStringLiteral("taskNumber"), QStringLiteral("instances")},
        {QStringLiteral("cpuNumber"), QStringLiteral("resourcePerInstance.cpu")},
        {QStringLiteral("memoryMB"), QStringLiteral("resourcePerInstance.memoryMB")},
        {QStringLiteral("gpuNumber"), QStringLiteral("resourcePerInstance.gpu")},
        {QStringLiteral("command"), QStringLiteral("commands")},
        {QStringLiteral("shmMB"), QStringLiteral("extraContainerOptions.shmMB")},
        {QStringLiteral("portList"), QStringLiteral("resourcePerInstance.ports")},
        {QStringLiteral("minFailedTaskCount"), QStringLiteral("completion.minFailedInstances")},
        {QStringLiteral("minSucceededTaskCount"),
         QStringLiteral("completion.minSucceededInstances")}};
    if (const auto found = top.constFind(v1Path); found != top.cend())
        return *found;
    static const QRegularExpression rolePath(
        QStringLiteral(R"(^taskRoles\[(\d+)\](?:\.(\w+)(?:\[(\d+)\])?)?)"));
    const QRegularExpressionMatch match = rolePath.match(v1Path);
    const qsizetype index = match.hasMatch() ? match.captured(1).toLongLong() : -1;
    if (index < 0 || index >= conversion.roleNames.size()) {
        if (v1Path == QLatin1String("image") && !conversion.roleNames.isEmpty())
            return QStringLiteral("taskRoles.%1.dockerImage").arg(conversion.roleNames.first());
        return v1Path;
    }
    QString path = QStringLiteral("taskRoles.") + conversion.roleNames.at(index);
    const QString field = match.captured(2);
    if (field.isEmpty() || field == QLatin1String("name"))
        return path;
    path += u'.' + roleFields.value(field, field);
    if (!match.captured(3).isEmpty()) {
        const QStringList labels = conversion.portLabels.value(index);
        const qsizetype port = match.captured(3).toLongLong();
        if (port < labels.size())
            path += u'.' + labels.at(port);
    }
    return path;
}

} // namespace ddl
