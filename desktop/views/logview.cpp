#include "logview.h"

#include "api/apiclient.h"
#include "core/errortext.h"
#include "jobs/logsearcher.h"
#include "jobs/logwindowloader.h"
#include "models/taskmodel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSlider>
#include <QTextBlock>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

// What a followed log keeps on screen; older lines scroll away (they stay on the server).
static constexpr int MaxFollowLines = 20000;

LogView::LogView(ApiClient *client, const QString &jobUuid, TaskModel *tasks, QWidget *parent)
    : QWidget(parent)
    , m_client(client)
    , m_jobUuid(jobUuid)
    , m_tasks(tasks)
{
    m_taskCombo = new QComboBox(this);
    m_taskCombo->setObjectName(u"taskCombo"_s);
    // Grows with the task names it is given later ("worker #0", "ps #12").
    m_taskCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_streamCombo = new QComboBox(this);
    m_streamCombo->setObjectName(u"streamCombo"_s);
    m_streamCombo->addItem(tr("All"), int(LogStream::All));
    m_streamCombo->addItem(tr("stdout"), int(LogStream::Stdout));
    m_streamCombo->addItem(tr("stderr"), int(LogStream::Stderr));
    m_streamCombo->setToolTip(
        tr("Everything the task wrote, with the worker's own lines, or only its stdout or stderr"));
    m_followCheck = new QCheckBox(tr("Follow"), this);
    m_followCheck->setObjectName(u"followCheck"_s);
    m_followCheck->setChecked(true);
    m_searchEdit = new QLineEdit(this);
    m_searchEdit->setObjectName(u"logSearch"_s);
    m_searchEdit->setPlaceholderText(tr("Search the whole log"));
    m_searchEdit->setClearButtonEnabled(true);
    m_previousButton = new QPushButton(tr("Previous"), this);
    m_previousButton->setObjectName(u"findPreviousButton"_s);
    m_nextButton = new QPushButton(tr("Next"), this);
    m_nextButton->setObjectName(u"findNextButton"_s);
    m_searchStatus = new QLabel(this);
    m_searchStatus->setObjectName(u"searchStatus"_s);
    m_positionLabel = new QLabel(this);
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setObjectName(u"logPosition"_s);
    m_slider->setRange(0, 1000);
    m_slider->setToolTip(tr("Where in the whole log the shown part lies"));
    m_text = new QPlainTextEdit(this);
    m_text->setObjectName(u"logText"_s);
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Task:"), this));
    bar->addWidget(m_taskCombo);
    bar->addWidget(new QLabel(tr("Stream:"), this));
    bar->addWidget(m_streamCombo);
    bar->addWidget(m_followCheck);
    bar->addWidget(m_searchEdit, 1);
    bar->addWidget(m_previousButton);
    bar->addWidget(m_nextButton);
    bar->addWidget(m_searchStatus);
    auto *positionRow = new QHBoxLayout;
    positionRow->addWidget(m_slider, 1);
    positionRow->addWidget(m_positionLabel);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_text, 1);
    layout->addLayout(positionRow);

    m_sliderDebounce.setSingleShot(true);
    m_sliderDebounce.setInterval(150);
    connect(&m_sliderDebounce, &QTimer::timeout, this, &LogView::handleSliderMoved);
    connect(m_slider, &QSlider::valueChanged, this, [this] {
        if (!m_updatingSlider)
            m_sliderDebounce.start();
    });
    connect(m_followCheck, &QCheckBox::toggled, this, [this](bool follow) {
        if (!m_loader)
            return;
        if (follow) {
            m_loader->loadTail();
            m_loader->setFollow(true);
        } else {
            m_loader->setFollow(false);
        }
    });
    connect(m_searchEdit, &QLineEdit::returnPressed, this, &LogView::findNext);
    connect(m_nextButton, &QPushButton::clicked, this, &LogView::findNext);
    connect(m_previousButton, &QPushButton::clicked, this, &LogView::findPrevious);
    connect(m_taskCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0)
            showTask(m_taskCombo->itemData(index).toLongLong());
    });
    connect(m_streamCombo, &QComboBox::currentIndexChanged, this, [this] {
        if (m_loader)
            showLog(m_loader->taskId(), stream());
    });
    connect(tasks, &TaskModel::modelReset, this, &LogView::handleTasksChanged);
    connect(tasks, &TaskModel::dataChanged, this, &LogView::handleTasksChanged);
    handleTasksChanged();
}

LogStream LogView::stream() const
{
    return LogStream(m_streamCombo->currentData().toInt());
}

void LogView::setStream(LogStream stream)
{
    m_streamCombo->setCurrentIndex(m_streamCombo->findData(int(stream)));
}

void LogView::handleTasksChanged()
{
    // Keep the chosen task; list the tasks of the current attempt.
    const qint64 current = m_taskCombo->currentData().toLongLong();
    QSignalBlocker blocker(m_taskCombo);
    m_taskCombo->clear();
    int select = 0;
    for (int row = 0; row < m_tasks->rowCount(); ++row) {
        m_taskCombo->addItem(m_tasks->label(row), m_tasks->taskId(row));
        if (m_tasks->taskId(row) == current)
            select = row;
    }
    if (m_taskCombo->count() == 0)
        return;
    m_taskCombo->setCurrentIndex(select);
    if (!m_loader || m_loader->taskId() != m_taskCombo->currentData().toLongLong())
        showTask(m_taskCombo->currentData().toLongLong());
}

void LogView::selectTask(qint64 taskId)
{
    const int index = m_taskCombo->findData(taskId);
    if (index >= 0 && index != m_taskCombo->currentIndex())
        m_taskCombo->setCurrentIndex(index); // shows it, through currentIndexChanged
    else
        showTask(taskId);
}

qint64 LogView::shownTask() const
{
    return m_taskCombo->currentData().toLongLong();
}

void LogView::focusSearch()
{
    m_searchEdit->setFocus(Qt::ShortcutFocusReason);
    m_searchEdit->selectAll();
}

void LogView::showTask(qint64 taskId)
{
    showLog(taskId, stream());
}

void LogView::showLog(qint64 taskId, LogStream stream)
{
    delete m_loader;
    delete m_searcher;
    m_text->clear();
    m_matchOffset = -1;
    m_matchNumber = 0;
    m_selectOffset = -1;
    m_searchStatus->clear();
    m_loader = new LogWindowLoader(m_client, m_jobUuid, taskId, stream, this);
    connect(m_loader, &LogWindowLoader::windowLoaded, this, &LogView::handleWindow);
    connect(m_loader, &LogWindowLoader::appended, this, &LogView::handleAppended);
    m_searcher = new LogSearcher(m_client, m_jobUuid, taskId, stream, this);
    connect(m_searcher, &LogSearcher::found, this, &LogView::handleFound);
    connect(m_searcher, &LogSearcher::notFound, this, &LogView::handleNotFound);
    connect(m_searcher, &LogSearcher::failed, this, &LogView::handleSearchFailed);
    connect(m_searcher, &LogSearcher::countChanged, this, &LogView::updateSearchStatus);
    m_loader->loadTail();
    if (m_followCheck->isChecked())
        m_loader->setFollow(true);
}

void LogView::handleWindow(qint64 start, const QByteArray &bytes, qint64 logSize)
{
    m_text->setMaximumBlockCount(m_followCheck->isChecked() ? MaxFollowLines : 0);
    m_text->setPlainText(QString::fromUtf8(bytes));
    if (m_followCheck->isChecked())
        m_text->verticalScrollBar()->setValue(m_text->verticalScrollBar()->maximum());
    m_updatingSlider = true;
    m_slider->setValue(logSize > 0 ? int(start * 1000 / logSize) : 0);
    m_updatingSlider = false;
    updatePositionLabel();
    m_searcher->setLogComplete(m_loader->isComplete());
    if (m_selectOffset >= start && m_selectOffset < start + bytes.size()) {
        // The window starts at a character: the characters before the match are the decoded
        // bytes before it, less one for each "\r\n", which the document keeps as one separator.
        const QString before = QString::fromUtf8(bytes.first(m_selectOffset - start));
        const int position = int(before.size() - before.count(u"\r\n"_s));
        QTextCursor cursor(m_text->document());
        cursor.setPosition(position);
        cursor.setPosition(position + int(m_searcher->text().size()), QTextCursor::KeepAnchor);
        m_text->setTextCursor(cursor);
        m_text->centerCursor();
    }
    m_selectOffset = -1;
}

void LogView::handleAppended(const QByteArray &bytes, qint64 logSize)
{
    Q_UNUSED(logSize);
    QScrollBar *scroll = m_text->verticalScrollBar();
    const bool atEnd = scroll->value() >= scroll->maximum() - 2;
    m_text->moveCursor(QTextCursor::End);
    m_text->insertPlainText(QString::fromUtf8(bytes));
    if (atEnd)
        scroll->setValue(scroll->maximum());
    m_updatingSlider = true;
    m_slider->setValue(1000);
    m_updatingSlider = false;
    updatePositionLabel();
    m_searcher->setLogComplete(m_loader->isComplete());
}

void LogView::handleSliderMoved()
{
    if (!m_loader)
        return;
    m_followCheck->setChecked(false);
    m_loader->loadAt(m_loader->logSize() * m_slider->value() / 1000);
}

void LogView::updatePositionLabel()
{
    if (!m_loader)
        return;
    const QLocale locale;
    m_positionLabel->setText(tr("%1–%2 of %3")
                                 .arg(locale.formattedDataSize(m_loader->windowStart()),
                                      locale.formattedDataSize(m_loader->windowEnd()),
                                      locale.formattedDataSize(m_loader->logSize())));
}

void LogView::findNext()
{
    find(false);
}

void LogView::findPrevious()
{
    find(true);
}

void LogView::find(bool backward)
{
    const QString needle = m_searchEdit->text();
    if (needle.isEmpty() || !m_searcher)
        return;
    if (m_searcher->text() != needle) {
        m_matchOffset = -1;
        m_matchNumber = 0;
        m_searcher->setText(needle);
    }
    // From the match shown; without one, Next starts at the log's start, Previous at its end.
    if (backward)
        m_searcher->findPrevious(m_matchOffset);
    else
        m_searcher->findNext(m_matchOffset);
    // Answered at once from the matches counted so far, or "Searching…" until the server has.
    if (m_searcher->isSearching())
        updateSearchStatus();
}

void LogView::handleFound(qint64 offset, qint64 lineStart, int number)
{
    m_matchOffset = offset;
    m_matchNumber = number;
    m_selectOffset = offset;
    // Reading matches, not the end: the window goes where the match is.
    m_followCheck->setChecked(false);
    // A quarter of a window before the match: from the line before it, or, deep in a line longer
    // than that, from inside the line (a window from its start would end before the match).
    constexpr qint64 Before = LogWindowLoader::WindowBytes / 4;
    if (offset - lineStart <= Before)
        m_loader->loadAt(std::max<qint64>(0, lineStart - Before));
    else
        m_loader->loadFrom(offset - Before);
    updateSearchStatus();
}

void LogView::handleNotFound(bool backward)
{
    if (m_searcher->countComplete() && m_searcher->countedMatches() == 0)
        m_searchStatus->setText(tr("\"%1\" is not in this log").arg(m_searcher->text()));
    else
        m_searchStatus->setText(backward ? tr("No earlier match") : tr("No further match"));
}

void LogView::handleSearchFailed(const ddl::Error &error)
{
    m_searchStatus->setText(tr("Search failed: %1").arg(ErrorText::describe(error)));
}

void LogView::updateSearchStatus()
{
    if (!m_searcher || m_searcher->text().isEmpty())
        return;
    if (m_searcher->isSearching()) {
        m_searchStatus->setText(tr("Searching…"));
        return;
    }
    if (m_matchOffset < 0)
        return; // a not-found or failure message stays
    const QLocale locale;
    const QString total = locale.toString(m_searcher->countedMatches());
    if (m_matchNumber <= 0)
        m_searchStatus->setText(tr("Match at byte %1").arg(locale.toString(m_matchOffset)));
    else if (m_searcher->countComplete())
        m_searchStatus->setText(tr("%1 of %2").arg(locale.toString(m_matchNumber), total));
    else if (m_searcher->countStoppedAtBytes())
        m_searchStatus->setText(tr("%1 of %2 in the first %3 of the log")
                                    .arg(locale.toString(m_matchNumber),
                                         total,
                                         locale.formattedDataSize(m_searcher->countedBytes())));
    else if (m_searcher->countCapped())
        m_searchStatus->setText(
            tr("%1 of more than %2").arg(locale.toString(m_matchNumber), total));
    else
        m_searchStatus->setText(tr("%1 of %2 so far, counting…")
                                    .arg(locale.toString(m_matchNumber), total));
}

} // namespace ddl::desktop
