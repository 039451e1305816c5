#pragma once

#include "api/logapi.h"

#include <QPointer>
#include <QTimer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSlider;

namespace ddl {
class ApiClient;
struct Error;
}

namespace ddl::desktop {

class LogSearcher;
class LogWindowLoader;
class TaskModel;

// Live logs of one job: a task picker, a stream filter (everything, or only the task's stdout or
// stderr), a window of the chosen log (the slider picks where in the whole log the window is;
// follow keeps to its end), and search over the whole log on the server: Next/Previous load the
// window around a match and select it.
class LogView : public QWidget
{
    Q_OBJECT
public:
    LogView(ApiClient *client, const QString &jobUuid, TaskModel *tasks,
            QWidget *parent = nullptr);

    QPlainTextEdit *text() const { return m_text; }
    LogWindowLoader *loader() const { return m_loader; }
    LogSearcher *searcher() const { return m_searcher; }
    void showTask(qint64 taskId);
    // Shows taskId's log and names it in the task picker.
    void selectTask(qint64 taskId);
    qint64 shownTask() const;
    void focusSearch();
    void setStream(LogStream stream);
    LogStream stream() const;
    // Searches the whole log for the search box's text, after (or before) the current match.
    void findNext();
    void findPrevious();

private:
    void showLog(qint64 taskId, LogStream stream);
    void handleTasksChanged();
    void handleWindow(qint64 start, const QByteArray &bytes, qint64 logSize);
    void handleAppended(const QByteArray &bytes, qint64 logSize);
    void handleSliderMoved();
    void handleFound(qint64 offset, qint64 lineStart, int number);
    void handleNotFound(bool backward);
    void handleSearchFailed(const ddl::Error &error);
    void find(bool backward);
    void updatePositionLabel();
    void updateSearchStatus();

    QPointer<ApiClient> m_client;
    QString m_jobUuid;
    TaskModel *m_tasks;
    QComboBox *m_taskCombo;
    QComboBox *m_streamCombo;
    QCheckBox *m_followCheck;
    QLineEdit *m_searchEdit;
    QPushButton *m_previousButton;
    QPushButton *m_nextButton;
    QLabel *m_searchStatus;
    QLabel *m_positionLabel;
    QSlider *m_slider;
    QPlainTextEdit *m_text;
    LogWindowLoader *m_loader = nullptr;
    LogSearcher *m_searcher = nullptr;
    QTimer m_sliderDebounce;
    bool m_updatingSlider = false;
    // The match last shown (its byte offset in the log, its number; -1: none), and the one to
    // select once its window has arrived.
    qint64 m_matchOffset = -1;
    int m_matchNumber = 0;
    qint64 m_selectOffset = -1;
};

} // namespace ddl::desktop
