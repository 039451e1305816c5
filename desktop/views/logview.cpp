#include "logview.h"

#include "api/apiclient.h"
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
#include <QScrollBar>
#include <QSlider>
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
    m_followCheck = new QCheckBox(tr("Follow"), this);
    m_followCheck->setObjectName(u"followCheck"_s);
    m_followCheck->setChecked(true);
    m_searchEdit = new QLineEdit(this);
    m_searchEdit->setObjectName(u"logSearch"_s);
    m_searchEdit->setPlaceholderText(tr("Search in the shown part"));
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
    bar->addWidget(m_followCheck);
    bar->addWidget(m_searchEdit, 1);
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
    connect(m_taskCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0)
            showTask(m_taskCombo->itemData(index).toLongLong());
    });
    connect(tasks, &TaskModel::modelReset, this, &LogView::handleTasksChanged);
    connect(tasks, &TaskModel::dataChanged, this, &LogView::handleTasksChanged);
    handleTasksChanged();
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

void LogView::showTask(qint64 taskId)
{
    delete m_loader;
    m_text->clear();
    m_loader = new LogWindowLoader(m_client, m_jobUuid, taskId, this);
    connect(m_loader, &LogWindowLoader::windowLoaded, this, &LogView::handleWindow);
    connect(m_loader, &LogWindowLoader::appended, this, &LogView::handleAppended);
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
}

void LogView::handleAppended(const QByteArray &bytes, qint64 logSize)
{
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
    const QString needle = m_searchEdit->text();
    if (needle.isEmpty())
        return;
    if (m_text->find(needle))
        return;
    m_text->moveCursor(QTextCursor::Start);
    if (!m_text->find(needle))
        m_positionLabel->setText(tr("\"%1\" is not in the shown part of the log").arg(needle));
}

} // namespace ddl::desktop
