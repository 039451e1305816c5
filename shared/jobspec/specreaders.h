#pragma once

// Readers shared by the job spec parsers (JSON, task.yaml, OpenPAI protocol v2): they collect
// every error with the path of its field. Internal to shared/jobspec.

#include "specerror.h"

#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <yaml-cpp/yaml.h>

#include <limits>
#include <optional>
#include <utility>

namespace ddl::specread {

enum class Presence { Required, Optional };

constexpr int IntMin = std::numeric_limits<int>::min();
constexpr int IntMax = std::numeric_limits<int>::max();

inline QString childPath(const QString &parent, const QString &key)
{
    if (parent.isEmpty())
        return key;
    return parent + u'.' + key;
}

inline QString elementPath(const QString &parent, qsizetype index)
{
    return parent + u'[' + QString::number(index) + u']';
}

inline QString quoted(const QString &text)
{
    return u'"' + text + u'"';
}

inline QString outOfIntRange(const QString &got)
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

inline bool isQuotedString(const YAML::Node &node)
{
    // yaml-cpp gives quoted scalars the non-specific tag "!", plain ones "?".
    return node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str";
}

inline QString yamlTypeName(const YAML::Node &node)
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

    std::optional<YAML::Node> sequence(QLatin1String key, Presence presence)
    {
        const std::optional<YAML::Node> node = take(key, presence);
        if (!node)
            return std::nullopt;
        if (!node->IsSequence()) {
            wrongType(key, QStringLiteral("a sequence"), yamlTypeName(*node));
            return std::nullopt;
        }
        return node;
    }

    // The value of any type (a null one counts as absent when optional).
    std::optional<YAML::Node> anyValue(QLatin1String key, Presence presence)
    {
        return take(key, presence);
    }

    // The keys in the order written.
    QStringList keys() const
    {
        QStringList names;
        for (const auto &entry : m_entries)
            names.append(entry.first);
        return names;
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

} // namespace ddl::specread
