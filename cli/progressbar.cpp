#include "progressbar.h"

#include "console.h"
#include "outputformat.h"

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

ProgressBar::ProgressBar(Console &console, const QString &label)
    : m_console(console)
    , m_label(label)
{
}

void ProgressBar::update(const TransferProgress &progress)
{
    if (!m_console.stderrIsTerminal())
        return;
    const bool complete = progress.total > 0 && progress.done >= progress.total;
    if (m_drawn && !complete && m_sinceDraw.isValid() && m_sinceDraw.elapsed() < 100)
        return;
    m_sinceDraw.start();
    m_drawn = true;
    // \r and erase-to-end-of-line: the new bar replaces the old one in place.
    m_console.printStatus(u"\r\x1b[K"_s + render(m_label, progress));
}

void ProgressBar::finish()
{
    if (m_drawn)
        m_console.printStatus(u"\n"_s);
    m_drawn = false;
}

static QString formatSeconds(double seconds)
{
    const qint64 whole = qint64(seconds + 0.5);
    if (whole < 60)
        return QString::number(whole) + u's';
    if (whole < 3600)
        return QString::number(whole / 60) + u'm' + QString::number(whole % 60) + u's';
    return QString::number(whole / 3600) + u'h' + QString::number(whole % 3600 / 60) + u'm';
}

QString ProgressBar::render(const QString &label, const TransferProgress &progress)
{
    constexpr int Width = 24;
    const double fraction =
        progress.total > 0 ? std::clamp(double(progress.done) / double(progress.total), 0.0, 1.0)
                           : 1.0;
    const int filled = int(fraction * Width);
    QString text = label + u"  ["_s + QString(filled, u'#') + QString(Width - filled, u'.') +
                   u"]  "_s + QString::number(int(fraction * 100)).rightJustified(3) + u"%  "_s +
                   Output::humanSize(progress.done) + u'/' + Output::humanSize(progress.total);
    if (progress.bytesPerSecond > 0)
        text += u"  "_s + Output::humanSize(qint64(progress.bytesPerSecond)) + u"/s"_s;
    if (progress.etaSeconds >= 0 && fraction < 1.0)
        text += u"  ETA "_s + formatSeconds(progress.etaSeconds);
    return text;
}

} // namespace ddl::cli
